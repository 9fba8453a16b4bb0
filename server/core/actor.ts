import type { UserTable } from '../store/schema';
import { DomainError } from './errors';
import {
  effectiveRole,
  isAdminRole,
  isBuilderRole,
  isCreatorRole,
  isObserverRole,
  roleName,
  type RoleName,
} from './roles';

// The caller as every layer sees it: who it is, the roles it holds, and what a credential held
// to one gamespace lets it reach. Made by the authenticator (server/auth), read by the services.

/** Who is calling: a user (persisted or not yet registered) or a gamespace's in-lab agent. */
export interface Actor {
  id: string;
  name: string;
  scope: string;
  role: RoleName;
  appRole: RoleName;
  lastIdpAssignedRole: RoleName | null;
  workspaceLimit: number;
  gamespaceLimit: number;
  gamespaceMaxMinutes: number;
  gamespaceCleanupGraceMinutes: number;
  serviceAccountClientId: string | null;
  whenCreated: number;
  isAdmin: boolean;
  isObserver: boolean;
  isCreator: boolean;
  isBuilder: boolean;
  /** May name other players when registering a gamespace (admins always may). */
  isRegistrar: boolean;
  /** True for the pseudo-user of a gamespace grader key (id = gamespace id). */
  isAgent: boolean;
  /** False until POST /api/user/register stores the user. */
  persisted: boolean;
  /** How the request proved it (set by the authenticator; absent for actors made in code). */
  via?: 'jwt' | 'apikey' | 'ticket' | 'cookie';
  /**
   * Set when the credential was issued for one gamespace only (a grader key, a launch ticket,
   * an enlisted guest's ticket, and the tickets and cookies made from them): the actor then
   * reaches that gamespace's play and console routes and nothing else (server/http/grants.ts).
   */
  grant?: Grant;
}

/** What a credential issued for one gamespace may reach. */
export interface Grant {
  gamespaceId: string;
}

/**
 * The actor a credential scoped to one gamespace stands for: the subject without any role of
 * its own (an admin's launch ticket must not open the admin routes), held to the gamespace.
 */
export function scopedTo(actor: Actor, gamespaceId: string): Actor {
  return {
    ...actor,
    role: 'user',
    appRole: 'user',
    lastIdpAssignedRole: null,
    isAdmin: false,
    isObserver: false,
    isCreator: false,
    isBuilder: false,
    isRegistrar: false,
    grant: { gamespaceId },
  };
}

export interface UserDefaults {
  workspaceLimit: number;
  gamespaceLimit: number;
}

export function actorFrom(
  row: UserTable | null,
  identity: { id: string; name: string },
  idpRole: RoleName | null,
  defaults: UserDefaults,
): Actor {
  const appRole = row ? roleName(row.role) : 'user';
  const role = effectiveRole(appRole, idpRole);
  return {
    id: row?.id ?? identity.id,
    name: row?.name || identity.name,
    scope: row?.scope ?? '',
    role,
    appRole,
    lastIdpAssignedRole: idpRole,
    workspaceLimit: row?.workspaceLimit ?? defaults.workspaceLimit,
    gamespaceLimit: row?.gamespaceLimit ?? defaults.gamespaceLimit,
    gamespaceMaxMinutes: row?.gamespaceMaxMinutes ?? 0,
    gamespaceCleanupGraceMinutes: row?.gamespaceCleanupGraceMinutes ?? 0,
    serviceAccountClientId: row?.serviceAccountClientId ?? null,
    whenCreated: row?.whenCreated ?? 0,
    isAdmin: isAdminRole(role),
    isObserver: isObserverRole(role),
    isCreator: isCreatorRole(role),
    isBuilder: isBuilderRole(role),
    isRegistrar: isAdminRole(role) || !!row?.registrar,
    isAgent: false,
    persisted: !!row,
  };
}

/** The actor of a user whose local sign-in is disabled: refused like a disabled role. */
export function signInDisabled(actor: Actor): Actor {
  return {
    ...actor,
    role: 'disabled',
    isAdmin: false,
    isObserver: false,
    isCreator: false,
    isBuilder: false,
    isRegistrar: false,
  };
}

export function agentActor(gamespaceId: string): Actor {
  return {
    ...actorFrom(null, { id: gamespaceId, name: 'Gamespace Agent' }, null, {
      workspaceLimit: 0,
      gamespaceLimit: 0,
    }),
    isAgent: true,
    grant: { gamespaceId },
  };
}

export function assertEnabled(actor: Actor): void {
  if (actor.role === 'disabled') throw new DomainError('UserDisabled');
}
