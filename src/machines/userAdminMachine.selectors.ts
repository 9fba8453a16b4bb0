import { PASSWORD_SET_NOTICE, type UserAdminSnapshot } from './userAdminMachine';

/** The notice about the local account (a password set), shown beside the account's form. */
export const selectAccountNotice = (s: UserAdminSnapshot): string | null =>
  s.context.notice === PASSWORD_SET_NOTICE ? s.context.notice : null;

/** Any other notice (the user saved), shown beside the user's form. */
export const selectUserNotice = (s: UserAdminSnapshot): string | null =>
  s.context.notice === PASSWORD_SET_NOTICE ? null : s.context.notice;
