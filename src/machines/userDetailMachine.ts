import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type {
  AdminApiKey,
  AdminUser,
  LocalAccount,
  OpenUserUpdate,
} from './userAdminMachine.types';

export type UserDetailInput =
  | { request: 'load' | 'delete'; id: string }
  /** The open user with the draft's fields. */
  | { request: 'save'; user: AdminUser };

/** What may be asked of the open user's record. */
export type UserDetailRequest = UserDetailInput['request'];

export interface UserDetailContext {
  input: UserDetailInput;
  answer: OpenUserUpdate;
}

/** The open user's id, or the user to save. */
const idOf = ({ input }: UserDetailContext) => ('id' in input ? input.id : input.user.id);
const userOf = ({ input }: UserDetailContext) => ('user' in input ? input.user : null);

const notProvided = (name: string): Error => new Error(`userDetailMachine: provide ${name}`);

/**
 * One request on the open user's record, from its call to the server's answer: its API keys and
 * local account loaded, its fields saved, or the user deleted. It ends with what the answer
 * changes of the open user as its output; a failed call fails it, with the call's error, for its
 * parent to show.
 */
export const userDetailMachine = setup({
  types: {
    input: {} as UserDetailInput,
    context: {} as UserDetailContext,
    output: {} as OpenUserUpdate,
  },
  actors: {
    loadUserDetails: fromPromise<{ keys: AdminApiKey[]; account: LocalAccount }, { id: string }>(
      () => {
        throw notProvided('loadUserDetails');
      },
    ),
    saveUser: fromPromise<AdminUser, AdminUser>(() => {
      throw notProvided('saveUser');
    }),
    deleteUser: fromPromise<unknown, { id: string }>(() => {
      throw notProvided('deleteUser');
    }),
  },
  guards: {
    isLoad: ({ context }) => context.input.request === 'load',
    isSave: ({ context }) => context.input.request === 'save',
  },
}).createMachine({
  id: 'userDetail',
  description:
    "One request on the open user's record: its keys and local account loaded, its fields saved, or the user deleted; its output is what the answer changes of the open user, and a failure fails it.",
  context: ({ input }) => ({ input, answer: {} }),
  initial: 'choosing',
  states: {
    choosing: {
      always: [
        { guard: 'isLoad', target: 'loading' },
        { guard: 'isSave', target: 'saving' },
        { target: 'deleting' },
      ],
    },
    loading: {
      invoke: {
        id: 'loadUserDetails',
        src: 'loadUserDetails',
        input: ({ context }) => ({ id: idOf(context) }),
        onDone: {
          target: 'answered',
          actions: assign({
            answer: ({ event }) => ({
              keys: event.output?.keys ?? [],
              account: event.output?.account ?? null,
            }),
          }),
        },
      },
    },
    saving: {
      invoke: {
        id: 'saveUser',
        src: 'saveUser',
        input: ({ context }) => userOf(context)!,
        onDone: {
          target: 'answered',
          actions: assign({
            answer: ({ event }) => ({ user: event.output ?? null }),
          }),
        },
      },
    },
    deleting: {
      invoke: {
        id: 'deleteUser',
        src: 'deleteUser',
        input: ({ context }) => ({ id: idOf(context) }),
        onDone: { target: 'answered' },
      },
    },
    answered: { type: 'final' },
  },
  output: ({ context }) => context.answer,
});

export type UserDetailActorRef = ActorRefFrom<typeof userDetailMachine>;
export type UserDetailSnapshot = SnapshotFrom<typeof userDetailMachine>;
