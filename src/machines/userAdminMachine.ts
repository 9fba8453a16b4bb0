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
import type {
  AdminUser,
  OpenUserUpdate,
  UserAdminContext,
  UserAdminEvent,
  UserAdminInput,
  UserDraft,
} from './userAdminMachine.types';
import { userAccountMachine } from './userAccountMachine';
import { userDetailMachine } from './userDetailMachine';

// The admin Users section: the search over users (a pagedSearch child), adding a user, and the
// one user open for editing with its API keys and local account. The open user's requests are
// children of their own: userDetail (its record) and userAccount (its keys and local account).

export type * from './userAdminMachine.types';
export { USER_ROLES } from './userAdminMachine.types';

export const userSearchMachine = createPagedSearchMachine<AdminUser>();

/** The notice after the user's fields were saved. */
export const SAVED_NOTICE = 'Saved';
/** The notice after a local password was set (shown beside the account's form). */
export const PASSWORD_SET_NOTICE = 'Password set';

const draftOf = ({ id: _id, ...draft }: AdminUser): UserDraft => draft;
/** The section with no user open. */
const NONE_OPEN: Omit<UserAdminContext, 'selfId'> = {
  user: null,
  draft: null,
  keys: [],
  account: null,
  newKey: null,
  error: null,
  notice: null,
};
const open = (user: AdminUser) => ({ ...NONE_OPEN, user, draft: draftOf(user) });

/** The open user's id ('' when none is open). */
const openId = (context: UserAdminContext): string => context.user?.id ?? '';

/** A refused request of the open user: back to it, saying why. */
const failed = {
  target: 'ready',
  actions: {
    type: 'showError',
    params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }),
  },
} as const;

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
    userDetail: userDetailMachine,
    userAccount: userAccountMachine,
  },
  actions: {
    update: assign((_, update: OpenUserUpdate) => ({ ...update })),
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
  context: ({ input }) => ({ ...NONE_OPEN, selfId: input?.selfId ?? null }),
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
            id: 'userDetail',
            src: 'userDetail',
            input: ({ context }) => ({ request: 'load', id: openId(context) }),
            onDone: {
              target: 'ready',
              actions: { type: 'update', params: ({ event }) => event.output },
            },
            onError: failed,
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
            id: 'userDetail',
            src: 'userDetail',
            input: ({ context }) => ({
              request: 'save',
              user: { ...context.draft!, id: openId(context) },
            }),
            onDone: {
              target: 'ready',
              actions: [
                assign(({ event, context }) => {
                  const saved = event.output?.user;
                  return {
                    user: saved ?? context.user,
                    draft: saved ? draftOf(saved) : context.draft,
                    notice: SAVED_NOTICE,
                  };
                }),
                'refreshList',
              ],
            },
            onError: failed,
          },
        },
        deleting: {
          tags: ['busy'],
          invoke: {
            id: 'userDetail',
            src: 'userDetail',
            input: ({ context }) => ({ request: 'delete', id: openId(context) }),
            onDone: {
              target: '#userAdmin.browsing',
              actions: [assign({ user: null, draft: null, error: null }), 'refreshList'],
            },
            onError: failed,
          },
        },
        creatingKey: {
          tags: ['busy'],
          entry: assign({ error: null, newKey: null }),
          invoke: {
            id: 'userAccount',
            src: 'userAccount',
            input: ({ context }) => ({ request: 'createKey', id: openId(context) }),
            onDone: {
              target: 'ready',
              actions: { type: 'update', params: ({ event }) => event.output },
            },
            onError: failed,
          },
        },
        deletingKey: {
          tags: ['busy'],
          entry: assign({ error: null }),
          invoke: {
            id: 'userAccount',
            src: 'userAccount',
            input: ({ context, event }) => ({
              request: 'deleteKey',
              id: openId(context),
              keyId: event.type === 'key.deleteRequested' ? event.keyId : '',
            }),
            onDone: {
              target: 'ready',
              actions: { type: 'update', params: ({ event }) => event.output },
            },
            onError: failed,
          },
        },
        settingPassword: {
          tags: ['busy'],
          entry: assign({ error: null, notice: null }),
          invoke: {
            id: 'userAccount',
            src: 'userAccount',
            input: ({ context, event }) => ({
              request: 'setPassword',
              id: openId(context),
              password: event.type === 'password.setRequested' ? event.password : '',
              username: event.type === 'password.setRequested' ? event.username.trim() : '',
            }),
            onDone: {
              target: 'ready',
              actions: [
                { type: 'update', params: ({ event }) => event.output },
                assign({ notice: PASSWORD_SET_NOTICE }),
              ],
            },
            onError: failed,
          },
        },
        settingDisabled: {
          tags: ['busy'],
          entry: assign({ error: null }),
          invoke: {
            id: 'userAccount',
            src: 'userAccount',
            input: ({ context }) => ({
              request: 'setDisabled',
              id: openId(context),
              disabled: !context.account?.disabled,
            }),
            onDone: {
              target: 'ready',
              actions: { type: 'update', params: ({ event }) => event.output },
            },
            onError: failed,
          },
        },
      },
    },
  },
});

export type UserAdminActorRef = ActorRefFrom<typeof userAdminMachine>;
export type UserAdminSnapshot = SnapshotFrom<typeof userAdminMachine>;
