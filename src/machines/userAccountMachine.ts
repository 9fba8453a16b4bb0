import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { AdminApiKey, LocalAccount, OpenUserUpdate } from './userAdminMachine.types';

/** What may be asked of the open user's credentials: its API keys and its local account. */
export type UserAccountInput =
  | { request: 'createKey'; id: string }
  | { request: 'deleteKey'; id: string; keyId: string }
  | { request: 'setPassword'; id: string; password: string; username: string }
  | { request: 'setDisabled'; id: string; disabled: boolean };

export type UserAccountRequest = UserAccountInput['request'];

export interface UserAccountContext {
  input: UserAccountInput;
  answer: OpenUserUpdate;
}

const notProvided = (name: string): Error => new Error(`userAccountMachine: provide ${name}`);

/** The input, when it is the request `R`. */
const inputOf = <R extends UserAccountRequest>(context: UserAccountContext, _request: R) =>
  context.input as Extract<UserAccountInput, { request: R }>;

/**
 * One request on the open user's credentials, from its call to the server's answer: an API key
 * issued or deleted (each answered with the user's keys again), a local password set or the local
 * account disabled or enabled. It ends with what the answer changes of the open user as its
 * output; a failed call fails it, with the call's error, for its parent to show.
 */
export const userAccountMachine = setup({
  types: {
    input: {} as UserAccountInput,
    context: {} as UserAccountContext,
    output: {} as OpenUserUpdate,
  },
  actors: {
    /** Issues a key and lists the user's keys again. */
    createKey: fromPromise<{ value: string; keys: AdminApiKey[] }, { id: string }>(() => {
      throw notProvided('createKey');
    }),
    /** Deletes a key and lists the user's keys again. */
    deleteKey: fromPromise<AdminApiKey[], { id: string; keyId: string }>(() => {
      throw notProvided('deleteKey');
    }),
    setPassword: fromPromise<LocalAccount, { id: string; password: string; username: string }>(
      () => {
        throw notProvided('setPassword');
      },
    ),
    setDisabled: fromPromise<LocalAccount, { id: string; disabled: boolean }>(() => {
      throw notProvided('setDisabled');
    }),
  },
  guards: {
    isCreateKey: ({ context }) => context.input.request === 'createKey',
    isDeleteKey: ({ context }) => context.input.request === 'deleteKey',
    isSetPassword: ({ context }) => context.input.request === 'setPassword',
  },
}).createMachine({
  id: 'userAccount',
  description:
    "One request on the open user's credentials: an API key issued or deleted, a local password set, or the local account disabled or enabled; its output is what the answer changes of the open user, and a failure fails it.",
  context: ({ input }) => ({ input, answer: {} }),
  initial: 'choosing',
  states: {
    choosing: {
      always: [
        { guard: 'isCreateKey', target: 'creatingKey' },
        { guard: 'isDeleteKey', target: 'deletingKey' },
        { guard: 'isSetPassword', target: 'settingPassword' },
        { target: 'settingDisabled' },
      ],
    },
    creatingKey: {
      invoke: {
        id: 'createKey',
        src: 'createKey',
        input: ({ context }) => ({ id: context.input.id }),
        onDone: {
          target: 'answered',
          actions: assign({
            answer: ({ event }) => ({
              newKey: event.output?.value ?? null,
              keys: event.output?.keys ?? [],
            }),
          }),
        },
      },
    },
    deletingKey: {
      invoke: {
        id: 'deleteKey',
        src: 'deleteKey',
        input: ({ context }) => {
          const { id, keyId } = inputOf(context, 'deleteKey');
          return { id, keyId };
        },
        onDone: {
          target: 'answered',
          actions: assign({
            answer: ({ event }) => ({ keys: event.output ?? [] }),
          }),
        },
      },
    },
    settingPassword: {
      invoke: {
        id: 'setPassword',
        src: 'setPassword',
        input: ({ context }) => {
          const { id, password, username } = inputOf(context, 'setPassword');
          return { id, password, username };
        },
        onDone: {
          target: 'answered',
          actions: assign({
            answer: ({ event }) => ({ account: event.output ?? null }),
          }),
        },
      },
    },
    settingDisabled: {
      invoke: {
        id: 'setDisabled',
        src: 'setDisabled',
        input: ({ context }) => {
          const { id, disabled } = inputOf(context, 'setDisabled');
          return { id, disabled };
        },
        onDone: {
          target: 'answered',
          actions: assign({
            answer: ({ event }) => ({ account: event.output ?? null }),
          }),
        },
      },
    },
    answered: { type: 'final' },
  },
  output: ({ context }) => context.answer,
});

export type UserAccountActorRef = ActorRefFrom<typeof userAccountMachine>;
export type UserAccountSnapshot = SnapshotFrom<typeof userAccountMachine>;
