/** The role names a person sees (issue 29): the strongest of the roles the server granted. */
export type RoleLabel = 'Administrator' | 'Creator' | 'Observer' | 'User';

/**
 * The role shown for a profile. Administrators are also creators and observers, and creators
 * observers (server/core/roles.ts), so the strongest flag names the role; a builder has none of
 * the three and is shown as a user, as the reference's top bar does not tell builders apart.
 */
export function roleLabel(flags: {
  isAdmin: boolean;
  isCreator: boolean;
  isObserver: boolean;
}): RoleLabel {
  if (flags.isAdmin) return 'Administrator';
  if (flags.isCreator) return 'Creator';
  if (flags.isObserver) return 'Observer';
  return 'User';
}
