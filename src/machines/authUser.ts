// The signed-in user as the auth token and its children know them.

/** The signed-in user as the identity client loaded it. */
export interface AuthUser {
  accessToken: string;
  tokenType: string;
  /** Expiry of the access token in epoch milliseconds, when the provider gave one. */
  expiresAt: number | null;
  profile: { sub: string; name?: string; [claim: string]: unknown };
}

/** The user as the server registered it (POST /api/user/register). */
export interface Profile {
  id: string;
  name: string;
  role: string;
  isAdmin: boolean;
  isObserver: boolean;
  isCreator: boolean;
  isBuilder: boolean;
  /** The account's cap on a game's length in minutes (0 or missing: none of its own). */
  gamespaceMaxMinutes?: number;
  /** How many workspaces the account may manage (0 or missing: none, unless a creator). */
  workspaceLimit?: number;
}
