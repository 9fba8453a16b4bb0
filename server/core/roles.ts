// Roles of the reference system. The stored numbers are the UserRole enum's; the effective role
// is the strongest of the app role and the identity provider's roles.

export const ROLE_NUMBERS = {
  user: 0,
  builder: 1,
  creator: 2,
  administrator: 3,
  disabled: 4,
  observer: 5,
} as const;

export type RoleName = keyof typeof ROLE_NUMBERS;

const NAMES = Object.fromEntries(
  Object.entries(ROLE_NUMBERS).map(([name, n]) => [n, name]),
) as Record<number, RoleName>;

// Administrator > Creator > Observer > Builder > User.
const STRENGTH: Record<RoleName, number> = {
  disabled: 0,
  user: 1,
  builder: 2,
  observer: 3,
  creator: 4,
  administrator: 5,
};

export function roleName(n: number | null | undefined): RoleName {
  return (n !== null && n !== undefined && NAMES[n]) || 'user';
}

export function parseRole(value: unknown): RoleName | null {
  if (typeof value === 'number') return NAMES[value] ?? null;
  if (typeof value !== 'string') return null;
  const key = value.trim().toLowerCase();
  if (key in ROLE_NUMBERS) return key as RoleName;
  if (/^\d+$/.test(key)) return NAMES[Number(key)] ?? null;
  return null;
}

/** The strongest role; `disabled` in the app role wins over everything, so a block holds. */
export function effectiveRole(appRole: RoleName, idpRole: RoleName | null): RoleName {
  if (appRole === 'disabled') return 'disabled';
  if (!idpRole || idpRole === 'disabled') return appRole;
  return STRENGTH[idpRole] > STRENGTH[appRole] ? idpRole : appRole;
}

export function strongest(roles: RoleName[]): RoleName | null {
  let best: RoleName | null = null;
  for (const r of roles) if (r !== 'disabled' && (!best || STRENGTH[r] > STRENGTH[best])) best = r;
  return best;
}

export const isAdminRole = (r: RoleName) => r === 'administrator';
export const isCreatorRole = (r: RoleName) => r === 'creator' || r === 'administrator';
export const isObserverRole = (r: RoleName) =>
  r === 'observer' || r === 'creator' || r === 'administrator';
export const isBuilderRole = (r: RoleName) =>
  r === 'builder' || r === 'creator' || r === 'administrator';

/** The role claim value of the reference ("Administrator"). */
export const roleClaim = (r: RoleName) => r.charAt(0).toUpperCase() + r.slice(1);
