// The admin Users section's vocabulary, shared by userAdminMachine and its children.

/** A user as listed and edited; `role` is the stored role (the wire's appRole). */
export interface AdminUser {
  id: string;
  name: string;
  scope: string;
  role: string;
  workspaceLimit: number;
  gamespaceLimit: number;
  gamespaceMaxMinutes: number;
  gamespaceCleanupGraceMinutes: number;
  isRegistrar: boolean;
}

export type UserDraft = Omit<AdminUser, 'id'>;

export interface AdminApiKey {
  id: string;
  name: string;
  whenCreated: string;
}

export interface LocalAccount {
  /** Null when the user has no local sign-in. */
  username: string | null;
  disabled: boolean;
}

/** The roles an administrator assigns (wire reference §2.6, UserRole). */
export const USER_ROLES = [
  'user',
  'builder',
  'creator',
  'observer',
  'administrator',
  'disabled',
] as const;

export interface UserAdminInput {
  /** The signed-in administrator: its own account is one it may not disable. */
  selfId: string | null;
}

export type UserAdminEvent =
  | { type: 'user.selected'; user: AdminUser }
  | { type: 'user.closed' }
  | { type: 'user.addRequested'; name: string }
  | { type: 'draft.changed'; draft: Partial<UserDraft> }
  | { type: 'save.requested' }
  | { type: 'delete.requested' }
  | { type: 'delete.confirmed' }
  | { type: 'delete.cancelled' }
  | { type: 'key.createRequested' }
  | { type: 'key.deleteRequested'; keyId: string }
  | { type: 'key.dismissed' }
  | { type: 'password.setRequested'; password: string; username: string }
  | { type: 'account.disabledToggled' };

export interface UserAdminContext {
  /** The signed-in administrator's id (the input's). */
  selfId: string | null;
  user: AdminUser | null;
  draft: UserDraft | null;
  keys: readonly AdminApiKey[];
  account: LocalAccount | null;
  /** A key's value, shown once right after it is issued. */
  newKey: string | null;
  error: string | null;
  notice: string | null;
}

/** What a request of the open user changes of what the section shows of it. */
export interface OpenUserUpdate {
  user?: AdminUser | null;
  keys?: readonly AdminApiKey[];
  account?: LocalAccount | null;
  newKey?: string | null;
}
