import { mayCreateWorkspaces } from '../../src/domain/workspaceAccess';
import { realClock, type Clock } from '../clock';
import type { Repositories } from '../store/repositories';
import type { UserTable } from '../store/schema';
import type { WriteListener } from '../store/writeWatch';
import { createApiKeys } from './apiKeys';
import { createCallerCache, type Caller } from './callerCache';
import { hasAnyToken, isoDate } from './dto';
import { DomainError, forbidden, isUniqueViolation, notFound } from './errors';
import { integer, invalid, normalizeTerm, optionalText, paging, requiredText } from './fields';
import { gamespaceDto } from './gamespaces';
import { newId } from './ids';
import { workspaceSummaryDto } from './workspaces';
import { AccountError, type AccountDirectory } from './accountDirectory';
import { actorFrom, type Actor, type UserDefaults } from './actor';
import { parseRole, roleName, ROLE_NUMBERS, type RoleName } from './roles';

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

/** How users sign in, for the last-administrator rule. */
export interface SignInOptions {
  /**
   * True with the embedded identity provider: a user signs in only with a local account. An
   * external authority may let in anyone it knows, which the server cannot tell.
   */
  localAccountsOnly: boolean;
  /** The local accounts, whose sign-in an administrator disables. */
  accounts: Pick<AccountDirectory, 'setDisabled'>;
}

const NAME_MAX = 64;
const SCOPE_MAX = 1024;
const CLIENT_ID_MAX = 128;
const LIMIT_MAX = 2_147_483_647;

export function createUserService(
  repos: Pick<Repositories, 'users' | 'apiKeys' | 'gamespaces' | 'workspaces' | 'accounts'>,
  /** Calls the listener with the table of every write (the store's watchWrites). */
  watchWrites: (listener: WriteListener) => () => void,
  defaults: UserDefaults,
  signIn: SignInOptions,
  options: { callerCacheMs?: number; clock?: Clock } = {},
) {
  const clock = options.clock ?? realClock;
  const find = async (id: string): Promise<UserTable | null> =>
    (await repos.users.find(id)) ?? null;
  // The callers' rows, kept briefly (callerCache.ts); any write to users or accounts drops them.
  const callers = createCallerCache({ ttlMs: options.callerCacheMs });
  watchWrites((table) => {
    if (table === 'users' || table === 'identityAccounts') callers.clear();
  });
  const ADMIN = ROLE_NUMBERS.administrator;

  /** Whether the stored user is an administrator: by its own role or the identity provider's. */
  const holdsAdministrator = (row: Pick<UserTable, 'role' | 'lastIdpAssignedRole'>) =>
    row.role === ADMIN || (row.lastIdpAssignedRole === ADMIN && row.role !== ROLE_NUMBERS.disabled);

  /**
   * Whether taking administration from `id` (deleting it, changing its role, disabling its
   * sign-in) would leave no other administrator who can sign in: then nobody could administer
   * users any more. Administrators whose sign-in is disabled, and those with no way to sign in
   * (an API key is a credential an administrator issues, not a sign-in), do not count.
   */
  async function isLastAdministrator(id: string): Promise<boolean> {
    const others = await repos.users.countSigningInHolding(ADMIN, {
      exceptId: id,
      overriding: ROLE_NUMBERS.disabled,
      localAccountRequired: signIn.localAccountsOnly,
    });
    return others === 0;
  }

  const lastAdministrator = () => new DomainError('InvalidOperation', 'LastAdministrator');
  /** Nobody locks itself out: another administrator may disable it, if it must be. */
  const cannotDisableSelf = () => new DomainError('InvalidOperation', 'CannotDisableSelf');

  const number = (value: number | null | undefined, field: string) =>
    value === undefined || value === null
      ? undefined
      : integer(value, field, { min: 0, max: LIMIT_MAX });

  return {
    find,

    /**
     * The stored user a credential's subject stands for, and whether its local sign-in is
     * disabled (PUT /api/user/{id}/disabled): then none of its tokens, tickets or cookies work
     * any more, at once on this server and within CALLER_CACHE_MS on the others (callerCache.ts).
     * One query for a stored user; a second only for one not stored yet.
     */
    async findCaller(id: string): Promise<Caller> {
      const now = clock.now();
      const kept = callers.get(id, now);
      if (kept) return kept;
      const since = callers.epoch();
      const found = await repos.users.findWithAccount(id);
      let caller: Caller;
      if (found) {
        const { accountDisabled, ...row } = found;
        caller = { row, signInDisabled: !!accountDisabled };
      } else {
        caller = { row: null, signInDisabled: await repos.users.accountDisabled(id) };
      }
      callers.set(id, caller, since, now);
      return caller;
    },

    /** The user's API keys (GET /api/user/{id}/keys, POST and DELETE /api/apikey). */
    apiKeys: createApiKeys(repos, clock),

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
      const query = {
        term,
        roles: roles.map((r) => ROLE_NUMBERS[r as RoleName]),
        serviceAccountsOnly: !!search.isServiceAccount,
      };
      // Scope tokens are compared as the reference compares them, which SQL cannot do alone.
      const rows = scope
        ? (await repos.users.search(query, null))
            .filter((u) => hasAnyToken(u.scope, scope))
            .slice(skip, skip + take)
        : await repos.users.search(query, { skip, take });
      return rows.map((row) => storedUserDto(row, defaults));
    },

    /** GET /api/user/scopes: every scope token any user has, once, sorted. */
    async scopes(): Promise<string[]> {
      const scopes = await repos.users.scopes();
      const tokens = new Set(scopes.flatMap((scope) => scope.split(/[\s,;]+/).filter(Boolean)));
      return [...tokens].sort();
    },

    /**
     * POST /api/user (administrators): adds the user when its id is new or absent (a name is
     * then required), otherwise changes the fields the body has. The last administrator who can
     * sign in keeps its role, and nobody gives itself the disabled role.
     */
    async save(actor: Actor, model: ChangedUser): Promise<UserDto> {
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
      if (existing && changes.role !== undefined) {
        if (id === actor.id && changes.role === ROLE_NUMBERS.disabled) throw cannotDisableSelf();
        const after = { ...existing, role: changes.role };
        if (
          holdsAdministrator(existing) &&
          !holdsAdministrator(after) &&
          (await isLastAdministrator(id))
        ) {
          throw lastAdministrator();
        }
      }
      try {
        if (existing) {
          if (Object.keys(changes).length) await repos.users.update(id, changes);
        } else {
          await repos.users.insert({
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
            whenCreated: clock.now(),
            ...changes,
          });
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
      if (holdsAdministrator(row) && (await isLastAdministrator(id))) throw lastAdministrator();
      await repos.users.remove(id);
    },

    /**
     * PUT /api/user/{id}/disabled (administrators): disables or enables the user's local
     * sign-in. No administrator disables its own, and the last administrator who can sign in
     * stays able to (an administrator with only an API key cannot disable it).
     */
    async setSignInDisabled(actor: Actor, id: string, disabled: boolean): Promise<void> {
      if (disabled) {
        if (id === actor.id) throw cannotDisableSelf();
        const row = await find(id);
        if (row && holdsAdministrator(row) && (await isLastAdministrator(id))) {
          throw lastAdministrator();
        }
      }
      try {
        await signIn.accounts.setDisabled(id, disabled);
      } catch (error) {
        if (error instanceof AccountError) throw notFound();
        throw error;
      }
    },

    /** GET /api/user/{id}/workspaces (administrators, or the user): where it is a worker. */
    async workspaces(actor: Actor, id: string) {
      if (!actor.isAdmin && actor.id !== id) throw forbidden();
      const rows = await repos.workspaces.ofWorker(id);
      return rows.map((w) => workspaceSummaryDto(w));
    },

    /** GET /api/user/{id}/gamespaces (administrators, or the user): where it is a player. */
    async gamespaces(actor: Actor, id: string) {
      if (!actor.isAdmin && actor.id !== id) throw forbidden();
      const rows = await repos.gamespaces.playedBy(id);
      const now = clock.now();
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
      if (mayCreateWorkspaces(user)) return true;
      return (await repos.workspaces.workedOnBy(id)).length > 0;
    },

    async findByServiceAccount(clientId: string): Promise<UserTable | null> {
      return (await repos.users.findByServiceAccount(clientId)) ?? null;
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
        if (Object.keys(changes).length) await repos.users.update(actor.id, changes);
        return { ...existing, ...changes };
      }
      const count = await repos.users.count();
      const row: UserTable = {
        id: actor.id,
        name: actor.name.slice(0, 64),
        scope: '',
        workspaceLimit: defaults.workspaceLimit,
        gamespaceLimit: defaults.gamespaceLimit,
        gamespaceMaxMinutes: 0,
        gamespaceCleanupGraceMinutes: 0,
        role: count === 0 ? ROLE_NUMBERS.administrator : ROLE_NUMBERS.user,
        lastIdpAssignedRole: idpRole,
        serviceAccountClientId: null,
        registrar: 0,
        whenCreated: clock.now(),
      };
      await repos.users.insertIfAbsent(row);
      return (await find(actor.id)) ?? row;
    },

    /** Whether any user or local account is stored: a first start with an empty database has none. */
    async anyStored(): Promise<boolean> {
      return repos.accounts.any();
    },

    /** Stores the user of an account made on the first start, with the default limits. */
    async addSeeded(user: { id: string; name: string; role: RoleName }): Promise<void> {
      await repos.users.insertIfAbsent({
        id: user.id,
        name: user.name,
        scope: '',
        workspaceLimit: defaults.workspaceLimit,
        gamespaceLimit: defaults.gamespaceLimit,
        gamespaceMaxMinutes: 0,
        gamespaceCleanupGraceMinutes: 0,
        role: ROLE_NUMBERS[user.role],
        lastIdpAssignedRole: null,
        serviceAccountClientId: null,
        registrar: 0,
        whenCreated: clock.now(),
      });
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
