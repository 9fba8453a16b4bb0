import { sql } from 'kysely';
import { isUniqueViolation, type Store } from '../store/db';
import type { UserTable } from '../store/schema';
import { createApiKeys } from './apiKeys';
import { hasAnyToken, isoDate } from './dto';
import { DomainError, forbidden, notFound } from './errors';
import {
  contains,
  integer,
  invalid,
  normalizeTerm,
  optionalText,
  paging,
  requiredText,
  startsWith,
} from './fields';
import { gamespaceDto } from './gamespaces';
import { newId } from './ids';
import { workspaceSummaryDto } from './workspaces';
import {
  effectiveRole,
  isAdminRole,
  isBuilderRole,
  isCreatorRole,
  isObserverRole,
  parseRole,
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

export type UserDto = ReturnType<typeof userDto>;

/** A stored user as the API shows it to administrators: its roles as last seen. */
export function storedUserDto(row: UserTable, defaults: UserDefaults): UserDto {
  const idpRole = row.lastIdpAssignedRole === null ? null : roleName(row.lastIdpAssignedRole);
  return userDto(actorFrom(row, row, idpRole, defaults));
}

/** ChangedUser (wire reference §2.6) and our own `isRegistrar`; a field left out keeps its value. */
export interface ChangedUser {
  id?: string | null;
  name?: string | null;
  scope?: string | null;
  workspaceLimit?: number | null;
  gamespaceLimit?: number | null;
  gamespaceMaxMinutes?: number | null;
  gamespaceCleanupGraceMinutes?: number | null;
  serviceAccountClientId?: string | null;
  /** A role name in any case or the UserRole number; anything else is refused. */
  role?: unknown;
  isRegistrar?: boolean | null;
}

/** UserSearch (wire reference §1.7). */
export interface UserSearch {
  term?: string;
  skip?: number;
  take?: number;
  filter?: string[];
  scope?: string;
  isServiceAccount?: boolean;
}

/** The roles `filter` may name; a user matches by app role or identity-provider role. */
const ROLE_FILTERS = ['administrator', 'observer', 'creator', 'builder'] as const;

const NAME_MAX = 64;
const SCOPE_MAX = 1024;
const CLIENT_ID_MAX = 128;
const LIMIT_MAX = 2_147_483_647;

export function createUserService(store: Pick<Store, 'db' | 'rowLookup'>, defaults: UserDefaults) {
  const { db } = store;
  // Every authenticated request reads its user's row.
  const userById = store.rowLookup('users', 'id');
  const find = async (id: string): Promise<UserTable | null> => (await userById(id)) ?? null;
  const ADMIN = ROLE_NUMBERS.administrator;

  /**
   * Whether removing the administrator `id` (deleting it, or changing its role) would leave no
   * one who is an administrator as stored: then nobody could administer users any more.
   */
  async function isLastAdministrator(id: string): Promise<boolean> {
    const others = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('id', '<>', id)
      .where((eb) =>
        eb.or([
          eb('role', '=', ADMIN),
          eb.and([eb('lastIdpAssignedRole', '=', ADMIN), eb('role', '<>', ROLE_NUMBERS.disabled)]),
        ]),
      )
      .executeTakeFirstOrThrow();
    return Number(others.n) === 0;
  }

  const lastAdministrator = () => new DomainError('InvalidOperation', 'LastAdministrator');

  const number = (value: number | null | undefined, field: string) =>
    value === undefined || value === null
      ? undefined
      : integer(value, field, { min: 0, max: LIMIT_MAX });

  return {
    find,

    /** The user's API keys (GET /api/user/{id}/keys, POST and DELETE /api/apikey). */
    apiKeys: createApiKeys(db),

    /** GET /api/user/{id} of someone else (administrators only). */
    async load(id: string): Promise<UserDto> {
      const row = await find(id);
      if (!row) throw notFound();
      return storedUserDto(row, defaults);
    },

    /**
     * GET /api/users: `term` in the name or the start of the id, the roles of `filter` (any of
     * them), a token of `scope`, service accounts only with `isServiceAccount`. By name, an
     * exact name first: the Moodle plugin looks its service account up by name and reads `[0]`.
     */
    async search(search: UserSearch): Promise<UserDto[]> {
      const { skip, take } = paging(search);
      const term = normalizeTerm(search.term);
      const roles = (search.filter ?? []).map((f) => f.toLowerCase());
      for (const role of roles) {
        if (!(ROLE_FILTERS as readonly string[]).includes(role)) throw invalid('filter');
      }
      const scope = (search.scope ?? '').trim();
      let q = db.selectFrom('users').selectAll();
      if (term) {
        q = q.where((eb) => eb.or([contains('name', term), startsWith('id', term)]));
      }
      if (roles.length) {
        const numbers = roles.map((r) => ROLE_NUMBERS[r as RoleName]);
        q = q.where((eb) =>
          eb.or([eb('role', 'in', numbers), eb('lastIdpAssignedRole', 'in', numbers)]),
        );
      }
      if (search.isServiceAccount) q = q.where('serviceAccountClientId', 'is not', null);
      if (term) q = q.orderBy(sql`case when lower(${sql.ref('name')}) = ${term} then 0 else 1 end`);
      q = q.orderBy('name').orderBy('id');
      // Scope tokens are compared as the reference compares them, which SQL cannot do alone.
      const rows = scope
        ? (await q.execute()).filter((u) => hasAnyToken(u.scope, scope)).slice(skip, skip + take)
        : await q.limit(take).offset(skip).execute();
      return rows.map((row) => storedUserDto(row, defaults));
    },

    /** GET /api/user/scopes: every scope token any user has, once, sorted. */
    async scopes(): Promise<string[]> {
      const rows = await db.selectFrom('users').select('scope').where('scope', '<>', '').execute();
      const tokens = new Set(rows.flatMap((r) => r.scope.split(/[\s,;]+/).filter(Boolean)));
      return [...tokens].sort();
    },

    /**
     * POST /api/user (administrators): adds the user when its id is new or absent (a name is
     * then required), otherwise changes the fields the body has. The last administrator keeps
     * its role.
     */
    async save(model: ChangedUser): Promise<UserDto> {
      const id = (model.id ?? '').trim() || newId();
      if (id.length > NAME_MAX) throw invalid('id');
      const existing = await find(id);
      const changes: Partial<UserTable> = {};
      if ((model.name !== undefined && model.name !== null) || !existing) {
        changes.name = requiredText(model.name, NAME_MAX);
      }
      if (model.scope !== undefined) changes.scope = optionalText(model.scope, SCOPE_MAX, 'scope');
      const limits = [
        'workspaceLimit',
        'gamespaceLimit',
        'gamespaceMaxMinutes',
        'gamespaceCleanupGraceMinutes',
      ] as const;
      for (const field of limits) {
        const value = number(model[field], field);
        if (value !== undefined) changes[field] = value;
      }
      if (model.serviceAccountClientId !== undefined) {
        const clientId = optionalText(
          model.serviceAccountClientId,
          CLIENT_ID_MAX,
          'serviceAccountClientId',
        ).trim();
        changes.serviceAccountClientId = clientId || null;
      }
      if (model.role !== undefined && model.role !== null) {
        const role = parseRole(model.role);
        if (!role) throw invalid('role');
        changes.role = ROLE_NUMBERS[role];
      }
      if (model.isRegistrar !== undefined && model.isRegistrar !== null) {
        changes.registrar = model.isRegistrar ? 1 : 0;
      }
      if (
        existing?.role === ADMIN &&
        changes.role !== undefined &&
        changes.role !== ADMIN &&
        (await isLastAdministrator(id))
      ) {
        throw lastAdministrator();
      }
      try {
        if (existing) {
          if (Object.keys(changes).length) {
            await db.updateTable('users').set(changes).where('id', '=', id).execute();
          }
        } else {
          await db
            .insertInto('users')
            .values({
              id,
              name: '',
              scope: '',
              workspaceLimit: defaults.workspaceLimit,
              gamespaceLimit: defaults.gamespaceLimit,
              gamespaceMaxMinutes: 0,
              gamespaceCleanupGraceMinutes: 0,
              role: ROLE_NUMBERS.user,
              lastIdpAssignedRole: null,
              serviceAccountClientId: null,
              registrar: 0,
              whenCreated: Date.now(),
              ...changes,
            })
            .execute();
        }
      } catch (error) {
        // Another user has this service account's client id (or the id was added meanwhile).
        if (isUniqueViolation(error)) throw new DomainError('ResourceAlreadyExists');
        throw error;
      }
      const saved = await find(id);
      if (!saved) throw notFound();
      return storedUserDto(saved, defaults);
    },

    /**
     * DELETE /api/user/{id} (administrators, or the user itself). Its API keys and favorites go
     * with it. Its worker and player rows stay, as in the reference (they have no foreign key to
     * users): they record who built a workspace and who played a game, and removing them could
     * leave a workspace without a manager. The same identity signing in again is a new user with
     * the default limits who finds them again; to keep someone out, disable them instead.
     */
    async remove(actor: Actor, id: string): Promise<void> {
      if (!actor.isAdmin && actor.id !== id) throw forbidden();
      const row = await find(id);
      if (!row) throw notFound();
      if (row.role === ADMIN && (await isLastAdministrator(id))) throw lastAdministrator();
      await db.transaction().execute(async (tx) => {
        for (const table of [
          'workspaceFavorites',
          'gamespaceFavorites',
          'templateFavorites',
        ] as const) {
          await tx.deleteFrom(table).where('userId', '=', id).execute();
        }
        await tx.deleteFrom('apiKeys').where('userId', '=', id).execute();
        await tx.deleteFrom('users').where('id', '=', id).execute();
      });
    },

    /** GET /api/user/{id}/workspaces (administrators, or the user): where it is a worker. */
    async workspaces(actor: Actor, id: string) {
      if (!actor.isAdmin && actor.id !== id) throw forbidden();
      const rows = await db
        .selectFrom('workspaces as w')
        .selectAll('w')
        .where('w.id', 'in', (eb) =>
          eb.selectFrom('workers').select('workspaceId').where('subjectId', '=', id),
        )
        .orderBy('w.name')
        .orderBy('w.id')
        .execute();
      return rows.map((w) => workspaceSummaryDto(w));
    },

    /** GET /api/user/{id}/gamespaces (administrators, or the user): where it is a player. */
    async gamespaces(actor: Actor, id: string) {
      if (!actor.isAdmin && actor.id !== id) throw forbidden();
      const rows = await db
        .selectFrom('gamespaces as g')
        .selectAll('g')
        .where('g.id', 'in', (eb) =>
          eb.selectFrom('players').select('gamespaceId').where('subjectId', '=', id),
        )
        .orderBy('g.whenCreated', 'desc')
        .orderBy('g.id')
        .execute();
      const now = Date.now();
      return rows.map((g) => gamespaceDto(g, now));
    },

    /**
     * GET /api/user/{id}/worker: whether the user may take part in authoring (be made a worker):
     * a creator, someone with a workspace limit, or already a worker. A user not stored yet has
     * the default limit.
     */
    async canWork(id: string): Promise<boolean> {
      const row = await find(id);
      const idpRole =
        row?.lastIdpAssignedRole === null || row === null
          ? null
          : roleName(row.lastIdpAssignedRole);
      const user = actorFrom(row, { id, name: '' }, idpRole, defaults);
      if (user.isCreator || user.workspaceLimit > 0) return true;
      const worker = await db
        .selectFrom('workers')
        .select('workspaceId')
        .where('subjectId', '=', id)
        .executeTakeFirst();
      return !!worker;
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
      const existing = await find(actor.id);
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
      return (await find(actor.id)) ?? row;
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
