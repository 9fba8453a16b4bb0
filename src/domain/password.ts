// A local password as the server accepts it (server/http/user/accountRoutes.ts: 8 to 256
// characters, for an administrator setting one and for a user changing its own), and what the
// profile page says before it asks.

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

export interface PasswordChange {
  current: string;
  next: string;
  /** The new password typed a second time. */
  repeat: string;
}

/**
 * Why the change cannot be sent as typed, or null when it can. The current password is checked
 * by the server only: here it must just be there.
 */
export function passwordChangeProblem({ current, next, repeat }: PasswordChange): string | null {
  if (current === '') return 'Enter your current password.';
  if (next.length < PASSWORD_MIN_LENGTH) {
    return `The new password is too short: use at least ${PASSWORD_MIN_LENGTH} characters.`;
  }
  if (next.length > PASSWORD_MAX_LENGTH) {
    return `The new password is too long: use at most ${PASSWORD_MAX_LENGTH} characters.`;
  }
  if (next !== repeat) return 'The two new passwords do not match: type the same one twice.';
  return null;
}
