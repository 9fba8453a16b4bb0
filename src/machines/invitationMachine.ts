import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { errorMessage } from '../domain/text';

/** How long 'Copied' shows after a workspace invitation link is copied (spec §4, §9). */
export const COPY_CONFIRMATION_MS = 4_000;

export type InvitationEvent =
  /** Generate invitation: a new code, which replaces (and so revokes) the previous one. */
  { type: 'invitation.generateRequested' } | { type: 'invitation.copyRequested' };

export interface InvitationInput {
  workspaceId: string;
  /** The SPA's origin, e.g. https://topoplay.example: invitation links are absolute. */
  origin: string;
}

export interface InvitationContext extends InvitationInput {
  /** The current code, once generated. */
  code: string | null;
  /** Why generating or copying failed, camel-case split. */
  error: string | null;
}

/** The link a collaborator opens to join (spec §7): {origin}/topo/{id}/invite/{code}. */
export const invitationLink = ({ origin, workspaceId, code }: InvitationContext): string | null =>
  code === null
    ? null
    : `${origin}/topo/${encodeURIComponent(workspaceId)}/invite/${encodeURIComponent(code)}`;

const notProvided = (name: string): Error =>
  new Error(`invitationMachine: '${name}' is provided by the app (src/app)`);

/**
 * The workspace invitation (spec §2 Settings tab, §4 "Invitations"): Generate asks the server
 * for a code, which replaces the previous one; the link can be copied, and 'Copied' shows for
 * COPY_CONFIRMATION_MS. Generating again is offered whenever nothing is in flight.
 */
export const invitationMachine = setup({
  types: {
    input: {} as InvitationInput,
    context: {} as InvitationContext,
    events: {} as InvitationEvent,
    // 'busy': a code is being generated. 'copied': the copy confirmation shows.
    tags: {} as 'busy' | 'copied',
  },
  actors: {
    /** PUT workspace/{id}/invite: the new code. */
    generateInvitation: fromPromise<{ code: string }, { workspaceId: string }>(() => {
      throw notProvided('generateInvitation');
    }),
    /** Writes the link to the clipboard (navigator.clipboard). */
    copyToClipboard: fromPromise<void, { text: string }>(() => {
      throw notProvided('copyToClipboard');
    }),
  },
  actions: {
    recordError: assign({ error: (_, { error }: { error: unknown }) => errorMessage(error) }),
  },
  guards: {
    hasCode: ({ context }) => context.code !== null,
  },
  delays: { copyConfirmation: COPY_CONFIRMATION_MS },
}).createMachine({
  id: 'invitation',
  description:
    'The invitation link: generating replaces the code; the link can be copied, and the confirmation shows for 4 s.',
  context: ({ input }) => ({ ...input, code: null, error: null }),
  initial: 'idle',
  on: { 'invitation.generateRequested': '.generating' },
  states: {
    idle: {},
    generating: {
      tags: ['busy'],
      // Pressing Generate again while one is in flight changes nothing.
      on: { 'invitation.generateRequested': {} },
      entry: assign({ error: null }),
      invoke: {
        id: 'generateInvitation',
        src: 'generateInvitation',
        input: ({ context }) => ({ workspaceId: context.workspaceId }),
        onDone: {
          target: 'shown',
          actions: assign({ code: ({ event }) => event.output?.code ?? null }),
        },
        // The previous code was not replaced: it is shown again, if there was one.
        onError: [
          {
            guard: 'hasCode',
            target: 'shown',
            actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
          },
          {
            target: 'idle',
            actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
          },
        ],
      },
    },
    shown: {
      on: { 'invitation.copyRequested': 'copying' },
    },
    copying: {
      entry: assign({ error: null }),
      invoke: {
        id: 'copyToClipboard',
        src: 'copyToClipboard',
        input: ({ context }) => ({ text: invitationLink(context) ?? '' }),
        onDone: 'copied',
        onError: {
          target: 'shown',
          actions: assign({ error: 'The link could not be copied: select it and copy it.' }),
        },
      },
    },
    copied: {
      tags: ['copied'],
      after: { copyConfirmation: 'shown' },
      on: { 'invitation.copyRequested': { target: 'copying' } },
    },
  },
});

export type InvitationActorRef = ActorRefFrom<typeof invitationMachine>;
export type InvitationSnapshot = SnapshotFrom<typeof invitationMachine>;
