import type { LoginSnapshot } from './loginMachine';

export const selectLoginError = (snapshot: LoginSnapshot): string | null => snapshot.context.error;

export const selectIsLoginBusy = (snapshot: LoginSnapshot): boolean => snapshot.hasTag('busy');

export const selectCanLogin = (snapshot: LoginSnapshot): boolean =>
  snapshot.can({ type: 'login.requested' });
