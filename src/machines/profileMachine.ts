import { and, assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { DEFAULT_KEYBOARD_LAYOUT, type KeyboardLayout } from '../domain/keyboardLayouts';
import { passwordChangeProblem, type PasswordChange } from '../domain/password';
import { errorMessage } from '../domain/text';

// The signed-in user's profile page (issue 29): its own API keys, and changing its password when
// it has a local sign-in with the embedded identity provider; and the keyboard layout of the
// machines it opens (keyboardLayouts.ts), which the console page also offers.

export interface OwnApiKey {
  id: string;
  name: string;
  /** ISO instant, as the server writes it. */
  whenCreated: string;
}

export interface ProfileInput {
  /** The signed-in user's id (the server's, from registration). */
  userId: string;
  /** The keyboard layout the user chose last. */
  keyboardLayout?: KeyboardLayout;
}

export type PasswordField = keyof PasswordChange;

export type ProfileEvent =
  | { type: 'profile.reloadRequested' }
  | { type: 'key.issueRequested' }
  | { type: 'key.copyRequested' }
  | { type: 'key.dismissed' }
  | { type: 'key.revokeRequested'; keyId: string }
  | { type: 'key.revokeConfirmed' }
  | { type: 'key.revokeCancelled' }
  | { type: 'password.edited'; field: PasswordField; value: string }
  | { type: 'password.changeRequested' }
  | { type: 'keyboard.layoutChosen'; layout: KeyboardLayout };

export interface ProfileContext {
  userId: string;
  keys: readonly OwnApiKey[];
  /** The local sign-in's username; null when the user has none (an outside provider's user). */
  username: string | null;
  /** A key's value, shown once right after it is issued. */
  newKey: string | null;
  /** The shown key was put on the clipboard. */
  keyCopied: boolean;
  /** The key whose revocation waits for a confirmation, or is under way. */
  revoking: string | null;
  /** Why loading the page, issuing or revoking a key failed. */
  keyError: string | null;
  password: PasswordChange;
  /** Why the password was not changed: the form's own check, or the server's answer. */
  passwordError: string | null;
  passwordChanged: boolean;
  /** The layout of the keyboards of the machines the user opens: consoles type on it. */
  keyboardLayout: KeyboardLayout;
}

const EMPTY_PASSWORD: PasswordChange = { current: '', next: '', repeat: '' };

const notProvided = (name: string): Error =>
  new Error(`profileMachine: '${name}' is provided by the app (src/app)`);

export const profileMachine = setup({
  types: {
    input: {} as ProfileInput,
    context: {} as ProfileContext,
    events: {} as ProfileEvent,
    tags: {} as 'busy',
  },
  actors: {
    /** The user's keys and local sign-in. */
    loadProfile: fromPromise<{ keys: OwnApiKey[]; username: string | null }, { userId: string }>(
      () => {
        throw notProvided('loadProfile');
      },
    ),
    /** Issues a key and lists the user's keys again. */
    issueKey: fromPromise<{ value: string; keys: OwnApiKey[] }, { userId: string }>(() => {
      throw notProvided('issueKey');
    }),
    /** Revokes a key and lists the user's keys again. */
    revokeKey: fromPromise<OwnApiKey[], { userId: string; keyId: string }>(() => {
      throw notProvided('revokeKey');
    }),
    /** Writes the new key to the clipboard (navigator.clipboard). */
    copyToClipboard: fromPromise<void, { text: string }>(() => {
      throw notProvided('copyToClipboard');
    }),
    changePassword: fromPromise<
      { username: string | null },
      { currentPassword: string; password: string }
    >(() => {
      throw notProvided('changePassword');
    }),
  },
  actions: {
    /** Keeps the choice for the user's consoles (the browser's local settings). */
    rememberKeyboardLayout: (_, _params: { layout: KeyboardLayout }) => {
      throw notProvided('rememberKeyboardLayout');
    },
    showKeyError: assign({ keyError: (_, { error }: { error: unknown }) => errorMessage(error) }),
  },
  guards: {
    hasLocalSignIn: ({ context }) => context.username !== null,
    hasNewKey: ({ context }) => context.newKey !== null,
    isPasswordChangeValid: ({ context }) => passwordChangeProblem(context.password) === null,
  },
}).createMachine({
  id: 'profile',
  description:
    "The signed-in user's profile: its API keys (issued with the value shown once, revoked after a confirmation) and, with a local sign-in, a password change checked before it is sent.",
  context: ({ input }) => ({
    userId: input.userId,
    keys: [],
    username: null,
    newKey: null,
    keyCopied: false,
    revoking: null,
    keyError: null,
    password: EMPTY_PASSWORD,
    passwordError: null,
    passwordChanged: false,
    keyboardLayout: input.keyboardLayout ?? DEFAULT_KEYBOARD_LAYOUT,
  }),
  on: {
    'keyboard.layoutChosen': {
      actions: [
        assign({ keyboardLayout: ({ event }) => event.layout }),
        { type: 'rememberKeyboardLayout', params: ({ event }) => ({ layout: event.layout }) },
      ],
    },
  },
  initial: 'loading',
  states: {
    loading: {
      tags: ['busy'],
      entry: assign({ keyError: null }),
      invoke: {
        id: 'loadProfile',
        src: 'loadProfile',
        input: ({ context }) => ({ userId: context.userId }),
        onDone: {
          target: 'ready',
          actions: assign({
            keys: ({ event }) => event.output.keys,
            username: ({ event }) => event.output.username,
          }),
        },
        onError: {
          target: 'failed',
          actions: { type: 'showKeyError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    failed: {
      on: { 'profile.reloadRequested': { target: 'loading' } },
    },
    // The keys and the password are worked on side by side: a key issued while a password
    // change is under way is neither held up nor lost.
    ready: {
      type: 'parallel',
      states: {
        keys: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                'key.issueRequested': { target: 'issuing' },
                'key.copyRequested': { guard: 'hasNewKey', target: 'copying' },
                'key.dismissed': { actions: assign({ newKey: null, keyCopied: false }) },
                'key.revokeRequested': {
                  target: 'confirmingRevoke',
                  actions: assign({ revoking: ({ event }) => event.keyId }),
                },
              },
            },
            issuing: {
              tags: ['busy'],
              entry: assign({ keyError: null, newKey: null, keyCopied: false }),
              invoke: {
                id: 'issueKey',
                src: 'issueKey',
                input: ({ context }) => ({ userId: context.userId }),
                onDone: {
                  target: 'idle',
                  actions: assign({
                    newKey: ({ event }) => event.output.value,
                    keys: ({ event }) => event.output.keys,
                  }),
                },
                onError: {
                  target: 'idle',
                  actions: {
                    type: 'showKeyError',
                    params: ({ event }) => ({ error: event.error }),
                  },
                },
              },
            },
            copying: {
              invoke: {
                id: 'copyToClipboard',
                src: 'copyToClipboard',
                input: ({ context }) => ({ text: context.newKey ?? '' }),
                onDone: { target: 'idle', actions: assign({ keyCopied: true }) },
                onError: {
                  // The key stays on screen, selectable: it can still be copied by hand.
                  target: 'idle',
                  actions: assign({
                    keyError: 'The key could not be put on the clipboard: select it and copy it.',
                  }),
                },
              },
            },
            confirmingRevoke: {
              on: {
                'key.revokeConfirmed': { target: 'revoking' },
                'key.revokeCancelled': { target: 'idle', actions: assign({ revoking: null }) },
              },
            },
            revoking: {
              tags: ['busy'],
              entry: assign({ keyError: null }),
              invoke: {
                id: 'revokeKey',
                src: 'revokeKey',
                input: ({ context }) => ({ userId: context.userId, keyId: context.revoking ?? '' }),
                onDone: {
                  target: 'idle',
                  actions: assign({ keys: ({ event }) => event.output, revoking: null }),
                },
                onError: {
                  target: 'idle',
                  actions: [
                    assign({ revoking: null }),
                    { type: 'showKeyError', params: ({ event }) => ({ error: event.error }) },
                  ],
                },
              },
            },
          },
        },
        password: {
          initial: 'editing',
          states: {
            editing: {
              on: {
                'password.edited': {
                  actions: assign({
                    password: ({ context, event }) => ({
                      ...context.password,
                      [event.field]: event.value,
                    }),
                    passwordChanged: false,
                  }),
                },
                // Nothing is sent before the form's own check passes; what was typed stays.
                'password.changeRequested': [
                  {
                    guard: and(['hasLocalSignIn', 'isPasswordChangeValid']),
                    target: 'changing',
                  },
                  {
                    guard: 'hasLocalSignIn',
                    actions: assign({
                      passwordError: ({ context }) => passwordChangeProblem(context.password),
                      passwordChanged: false,
                    }),
                  },
                ],
              },
            },
            changing: {
              tags: ['busy'],
              entry: assign({ passwordError: null, passwordChanged: false }),
              invoke: {
                id: 'changePassword',
                src: 'changePassword',
                input: ({ context }) => ({
                  currentPassword: context.password.current,
                  password: context.password.next,
                }),
                onDone: {
                  target: 'editing',
                  actions: assign({ password: EMPTY_PASSWORD, passwordChanged: true }),
                },
                onError: {
                  // What was typed stays, so that only the wrong part needs typing again.
                  target: 'editing',
                  actions: assign({ passwordError: ({ event }) => errorMessage(event.error) }),
                },
              },
            },
          },
        },
      },
    },
  },
});

export type ProfileActorRef = ActorRefFrom<typeof profileMachine>;
export type ProfileSnapshot = SnapshotFrom<typeof profileMachine>;
