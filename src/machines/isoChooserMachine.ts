import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { errorMessage } from '../domain/text';

/** The ISO search waits for typing to pause this long (spec §9). */
export const ISO_SEARCH_DEBOUNCE_MS = 500;

export type IsoChooserEvent =
  /** The chooser got focus: the ISOs are listed the first time (and after a failure). */
  | { type: 'iso.listRequested' }
  | { type: 'iso.termChanged'; term: string }
  /** 'This workspace only': keep only the paths that contain the workspace id. */
  | { type: 'iso.localToggled' };

export interface IsoChooserInput {
  workspaceId: string;
}

export interface IsoChooserContext extends IsoChooserInput {
  term: string;
  local: boolean;
  /** The paths of the last search. */
  paths: string[];
  /** Why the ISOs could not be listed. */
  error: string | null;
}

const notProvided = (name: string): Error =>
  new Error(`isoChooserMachine: '${name}' is provided by the app (src/app)`);

/**
 * The ISO chooser of a template (spec §2 Template editor): it searches the workspace's ISOs with a
 * 500 ms debounce, and filters what it found locally by term and by workspace. It searches only
 * once it is used, so that a workspace of many templates does not list ISOs for each on load. A
 * failed search leaves the chooser empty with a note; the template editor never depends on it.
 */
export const isoChooserMachine = setup({
  types: {
    input: {} as IsoChooserInput,
    context: {} as IsoChooserContext,
    events: {} as IsoChooserEvent,
    // 'busy': a search is in flight or waiting for typing to pause.
    tags: {} as 'busy',
  },
  actors: {
    /** GET workspace/{id}/isos?term&local: the ISO paths. */
    listIsos: fromPromise<string[], { workspaceId: string; term: string; local: boolean }>(() => {
      throw notProvided('listIsos');
    }),
  },
  actions: {
    setTerm: assign({
      term: ({ context, event }) =>
        event.type === 'iso.termChanged' ? String(event.term ?? '') : context.term,
    }),
  },
  delays: { isoSearchDebounce: ISO_SEARCH_DEBOUNCE_MS },
}).createMachine({
  id: 'isoChooser',
  description:
    'The ISO chooser: lists ISOs when first used, searches 500 ms after typing pauses, filters locally by term and workspace; a failed search leaves it empty with a note.',
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    term: '',
    local: false,
    paths: [],
    error: null,
  }),
  on: {
    'iso.termChanged': { target: '.debouncing', reenter: true, actions: 'setTerm' },
    'iso.localToggled': { actions: assign({ local: ({ context }) => !context.local }) },
  },
  initial: 'unused',
  states: {
    unused: { on: { 'iso.listRequested': 'searching' } },
    debouncing: {
      tags: ['busy'],
      after: { isoSearchDebounce: 'searching' },
    },
    searching: {
      tags: ['busy'],
      invoke: {
        id: 'listIsos',
        src: 'listIsos',
        input: ({ context }) => ({
          workspaceId: context.workspaceId,
          term: context.term,
          local: context.local,
        }),
        onDone: {
          target: 'listed',
          actions: assign({ paths: ({ event }) => event.output ?? [], error: null }),
        },
        onError: {
          target: 'unavailable',
          actions: assign({ paths: [], error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    listed: {},
    /** Focusing the chooser again tries again. */
    unavailable: { on: { 'iso.listRequested': 'searching' } },
  },
});

export type IsoChooserActorRef = ActorRefFrom<typeof isoChooserMachine>;
export type IsoChooserSnapshot = SnapshotFrom<typeof isoChooserMachine>;
