import type { Store } from '../store/db';
import type { UserTable } from '../store/schema';
import { isoDate } from './dto';
import { DomainError } from './errors';
import {
  effectiveRole,
  isAdminRole,
  isBuilderRole,
  isCreatorRole,
  isObserverRole,
  roleName,
  ROLE_NUMBERS,
  type RoleName,
} from '../auth/roles';

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

/** The User DTO (wire reference §2.6). */
export function userDto(actor: Actor) {
  return {
    id: actor.id,
    name: actor.name,
    scope: actor.scope,
    workspaceLimit: actor.workspaceLimit,
    gamespaceLimit: actor.gamespaceLimit,
    gamespaceMaxMinutes: actor.gamespaceMaxMinutes,
    gamespaceCleanupGraceMinutes: actor.gamespaceCleanupGraceMinutes,
    appRole: actor.appRole,
    lastIdpAssignedRole: actor.lastIdpAssignedRole,
    role: actor.role,
    serviceAccountClientId: actor.serviceAccountClientId,
    whenCreated: isoDate(actor.whenCreated),
    isAdmin: actor.isAdmin,
    isObserver: actor.isObserver,
    isCreator: actor.isCreator,
    isBuilder: actor.isBuilder,
    isRegistrar: actor.isRegistrar,
  };
}

export function createUserService(store: Pick<Store, 'db' | 'rowLookup'>, defaults: UserDefaults) {
  const { db } = store;
  // Every authenticated request reads its user's row.
  const userById = store.rowLookup('users', 'id');
  return {
    async find(id: string): Promise<UserTable | null> {
      return (await userById(id)) ?? null;
    },

    async findByServiceAccount(clientId: string): Promise<UserTable | null> {
      return (
        (await db
          .selectFrom('users')
          .selectAll()
          .where('serviceAccountClientId', '=', clientId)
          .executeTakeFirst()) ?? null
      );
    },

    /**
     * POST /api/user/register: stores the user on first sight with the default limits (the very
     * first user of an empty database becomes an administrator, as in the reference), keeps the
     * stored name in step with the identity provider's, and records its role.
     */
    async register(actor: Actor): Promise<UserTable> {
      const existing = await this.find(actor.id);
      const idpRole = actor.lastIdpAssignedRole ? ROLE_NUMBERS[actor.lastIdpAssignedRole] : null;
      if (existing) {
        const changes: Partial<UserTable> = {};
        if (actor.name && existing.name !== actor.name) changes.name = actor.name.slice(0, 64);
        if (existing.lastIdpAssignedRole !== idpRole) changes.lastIdpAssignedRole = idpRole;
        if (Object.keys(changes).length) {
          await db.updateTable('users').set(changes).where('id', '=', actor.id).execute();
        }
        return { ...existing, ...changes };
      }
      const count = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const row: UserTable = {
        id: actor.id,
        name: actor.name.slice(0, 64),
        scope: '',
        workspaceLimit: defaults.workspaceLimit,
        gamespaceLimit: defaults.gamespaceLimit,
        gamespaceMaxMinutes: 0,
        gamespaceCleanupGraceMinutes: 0,
        role: Number(count.n) === 0 ? ROLE_NUMBERS.administrator : ROLE_NUMBERS.user,
        lastIdpAssignedRole: idpRole,
        serviceAccountClientId: null,
        registrar: 0,
        whenCreated: Date.now(),
      };
      await db
        .insertInto('users')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      return (await this.find(actor.id)) ?? row;
    },

    async upsertSeeded(row: UserTable): Promise<void> {
      await db
        .insertInto('users')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;

export function assertEnabled(actor: Actor): void {
  if (actor.role === 'disabled') throw new DomainError('UserDisabled');
}
