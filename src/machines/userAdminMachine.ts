import {
  and,
  assign,
  fromPromise,
  not,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';
import { createPagedSearchMachine } from './pagedSearchMachine';

// The admin Users section: the search over users (a pagedSearch child), adding a user, and the
// one user open for editing with its API keys and local account.

/** The roles an administrator assigns (wire reference §2.6, UserRole). */
export const USER_ROLES = [
  'user',
  'builder',
  'creator',
  'observer',
  'administrator',
  'disabled',
] as const;

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

export const userSearchMachine = createPagedSearchMachine<AdminUser>();

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

/** The notice after the user's fields were saved. */
export const SAVED_NOTICE = 'Saved';
/** The notice after a local password was set (shown beside the account's form). */
export const PASSWORD_SET_NOTICE = 'Password set';

const draftOf = ({ id: _id, ...draft }: AdminUser): UserDraft => draft;
const open = (user: AdminUser) => ({
  user,
  draft: draftOf(user),
  keys: [],
  account: null,
  newKey: null,
  error: null,
  notice: null,
});

export const userAdminMachine = setup({
  types: {
    input: {} as UserAdminInput | undefined,
    context: {} as UserAdminContext,
    events: {} as UserAdminEvent,
    tags: {} as 'busy',
  },
  actors: {
    userSearch: userSearchMachine,
    addUser: fromPromise<AdminUser, { name: string }>(() => {
      throw new Error('userAdminMachine: provide addUser');
    }),
    loadUserDetails: fromPromise<{ keys: AdminApiKey[]; account: LocalAccount }, { id: string }>(
      () => {
        throw new Error('userAdminMachine: provide loadUserDetails');
      },
    ),
    saveUser: fromPromise<AdminUser, AdminUser>(() => {
      throw new Error('userAdminMachine: provide saveUser');
    }),
    deleteUser: fromPromise<unknown, { id: string }>(() => {
      throw new Error('userAdminMachine: provide deleteUser');
    }),
    /** Issues a key and lists the user's keys again. */
    createKey: fromPromise<{ value: string; keys: AdminApiKey[] }, { id: string }>(() => {
      throw new Error('userAdminMachine: provide createKey');
    }),
    /** Deletes a key and lists the user's keys again. */
    deleteKey: fromPromise<AdminApiKey[], { id: string; keyId: string }>(() => {
      throw new Error('userAdminMachine: provide deleteKey');
    }),
    setPassword: fromPromise<LocalAccount, { id: string; password: string; username: string }>(
      () => {
        throw new Error('userAdminMachine: provide setPassword');
      },
    ),
    setDisabled: fromPromise<LocalAccount, { id: string; disabled: boolean }>(() => {
      throw new Error('userAdminMachine: provide setDisabled');
    }),
  },
  actions: {
    showError: assign({ error: (_, { error }: { error: unknown }) => errorMessage(error) }),
    refreshList: sendTo('search', { type: 'search.refreshRequested' }),
  },
  guards: {
    hasName: ({ event }) => event.type === 'user.addRequested' && event.name.trim() !== '',
    hasPassword: ({ event }) => event.type === 'password.setRequested' && event.password !== '',
    hasAccount: ({ context }) => context.account?.username != null,
    // The server refuses it too (InvalidOperation CannotDisableSelf); enabling is no harm.
    isOwnEnabledAccount: ({ context }) =>
      context.user !== null && context.user.id === context.selfId && !context.account?.disabled,
  },
}).createMachine({
  id: 'userAdmin',
  description:
    'Admin Users: a paged search of users; adding one opens it; an open user is edited and saved explicitly, deleted after confirmation, and has its API keys (a new value shown once) and local account (password, disabled).',
  context: ({ input }) => ({
    selfId: input?.selfId ?? null,
    user: null,
    draft: null,
    keys: [],
    account: null,
    newKey: null,
    error: null,
    notice: null,
  }),
  invoke: {
    id: 'search',
    src: 'userSearch',
    input: { take: 100, debounceMs: 500 },
  },
  initial: 'browsing',
  on: {
    // Entering editing anew (another user's keys and account load) without leaving the root,
    // whose search child keeps its term and list.
    'user.selected': {
      target: '.editing',
      actions: assign(({ event }) => open(event.user)),
    },
    'user.addRequested': { guard: 'hasName', target: '.adding' },
  },
  states: {
    browsing: {},
    adding: {
      tags: ['busy'],
      invoke: {
        src: 'addUser',
        input: ({ event }) => ({
          name: event.type === 'user.addRequested' ? event.name.trim() : '',
        }),
        onDone: {
          target: 'editing',
          actions: [
            assign(({ event, context }) => (event.output ? open(event.output) : context)),
            'refreshList',
          ],
        },
        onError: {
          target: 'browsing',
          actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    editing: {
      initial: 'loading',
      on: {
        'user.closed': {
          target: 'browsing',
          actions: assign({ user: null, draft: null, newKey: null }),
        },
      },
      states: {
        loading: {
          tags: ['busy'],
          invoke: {
            id: 'loadUserDetails',
            src: 'loadUserDetails',
            input: ({ context }) => ({ id: context.user?.id ?? '' }),
            onDone: {
              target: 'ready',
              actions: assign({
                keys: ({ event }) => event.output?.keys ?? [],
                account: ({ event }) => event.output?.account ?? null,
              }),
            },
            onError: {
              target: 'ready',
              actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        ready: {
          on: {
            'draft.changed': {
              actions: assign({
                draft: ({ context, event }) => ({ ...context.draft!, ...event.draft }),
                notice: null,
              }),
            },
            'save.requested': { target: 'saving' },
            'delete.requested': { target: 'confirmingDelete' },
            'key.createRequested': { target: 'creatingKey' },
            'key.deleteRequested': { target: 'deletingKey' },
            'key.dismissed': { actions: assign({ newKey: null }) },
            'password.setRequested': { guard: 'hasPassword', target: 'settingPassword' },
            'account.disabledToggled': {
              guard: and(['hasAccount', not('isOwnEnabledAccount')]),
              target: 'settingDisabled',
            },
          },
        },
        confirmingDelete: {
          on: {
            'delete.confirmed': { target: 'deleting' },
            'delete.cancelled': { target: 'ready' },
          },
        },
        saving: {
          tags: ['busy'],
          entry: assign({ error: null, notice: null }),
          invoke: {
            src: 'saveUser',
            input: ({ context }) => ({ ...context.draft!, id: context.user?.id ?? '' }),
            onDone: {
              target: 'ready',
              actions: [
                assign(({ event, context }) => ({
                  user: event.output ?? context.user,
                  draft: event.output ? draftOf(event.output) : context.draft,
                  notice: SAVED_NOTICE,
                })),
                'refreshList',
              ],
            },
            onError: {
              target: 'ready',
              actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        deleting: {
          tags: ['busy'],
          invoke: {
            src: 'deleteUser',
            input: ({ context }) => ({ id: context.user?.id ?? '' }),
            onDone: {
              target: '#userAdmin.browsing',
              actions: [assign({ user: null, draft: null, error: null }), 'refreshList'],
            },
            onError: {
              target: 'ready',
              actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        creatingKey: {
          tags: ['busy'],
          entry: assign({ error: null, newKey: null }),
          invoke: {
            src: 'createKey',
            input: ({ context }) => ({ id: context.user?.id ?? '' }),
            onDone: {
              target: 'ready',
              actions: assign({
                newKey: ({ event }) => event.output?.value ?? null,
                keys: ({ event }) => event.output?.keys ?? [],
              }),
            },
            onError: {
              target: 'ready',
              actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        deletingKey: {
          tags: ['busy'],
          entry: assign({ error: null }),
          invoke: {
            src: 'deleteKey',
            input: ({ context, event }) => ({
              id: context.user?.id ?? '',
              keyId: event.type === 'key.deleteRequested' ? event.keyId : '',
            }),
            onDone: {
              target: 'ready',
              actions: assign({ keys: ({ event }) => event.output ?? [] }),
            },
            onError: {
              target: 'ready',
              actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        settingPassword: {
          tags: ['busy'],
          entry: assign({ error: null, notice: null }),
          invoke: {
            src: 'setPassword',
            input: ({ context, event }) => ({
              id: context.user?.id ?? '',
              password: event.type === 'password.setRequested' ? event.password : '',
              username: event.type === 'password.setRequested' ? event.username.trim() : '',
            }),
            onDone: {
              target: 'ready',
              actions: assign({
                account: ({ event }) => event.output ?? null,
                notice: PASSWORD_SET_NOTICE,
              }),
            },
            onError: {
              target: 'ready',
              actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        settingDisabled: {
          tags: ['busy'],
          entry: assign({ error: null }),
          invoke: {
            src: 'setDisabled',
            input: ({ context }) => ({
              id: context.user?.id ?? '',
              disabled: !context.account?.disabled,
            }),
            onDone: {
              target: 'ready',
              actions: assign({ account: ({ event }) => event.output ?? null }),
            },
            onError: {
              target: 'ready',
              actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
      },
    },
  },
});

export type UserAdminActorRef = ActorRefFrom<typeof userAdminMachine>;
export type UserAdminSnapshot = SnapshotFrom<typeof userAdminMachine>;
