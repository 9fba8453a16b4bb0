import {
  assign,
  fromPromise,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import { templateDetailProblem } from '../domain/templateDetail';
import { TEMPLATE_LIMITS } from '../domain/templateFields';
import { errorMessage } from '../domain/text';

/** The fields of the admin template form (wire reference §2.4 ChangedTemplateDetail). */
export interface TemplateDetailValues {
  name: string;
  description: string;
  audience: string;
  networks: string;
  guestinfo: string;
  /** VmTemplate JSON text. */
  detail: string;
  isPublished: boolean;
}

export interface LoadedTemplateDetail extends TemplateDetailValues {
  id: string;
  isLinked: boolean;
}

/** Told to the manager after each save, so that its list shows the new name and state. */
export type TemplateDetailReport = { type: 'template.saved'; id: string };

export type TemplateDetailEvent =
  | { type: 'detail.edited'; changes: Partial<TemplateDetailValues> }
  | { type: 'detail.saveRequested' }
  | { type: 'detail.reloadRequested' };

export interface TemplateDetailInput {
  id: string;
  parentRef?: ActorRef<Snapshot<unknown>, TemplateDetailReport>;
}

export interface TemplateDetailContext {
  id: string;
  parentRef: TemplateDetailInput['parentRef'] | null;
  isLinked: boolean;
  values: TemplateDetailValues;
  /** The values as last loaded or saved: the form is dirty while they differ. */
  saved: TemplateDetailValues;
  /** What stops a save, checked as the admin types (the server checks the same). */
  problem: string | null;
  /** Why the last load or save failed. */
  error: string | null;
}

const EMPTY: TemplateDetailValues = {
  name: '',
  description: '',
  audience: '',
  networks: '',
  guestinfo: '',
  detail: '',
  isPublished: false,
};

/** The first thing wrong with the form: the name's rules, then the detail's. */
export function formProblem(values: TemplateDetailValues): string | null {
  if (!values.name.trim()) return 'Please enter a name for this template.';
  for (const field of ['name', 'description', 'audience', 'networks', 'guestinfo'] as const) {
    const max = TEMPLATE_LIMITS[field];
    if (values[field].length > max) return `The ${field} must be at most ${max} characters.`;
  }
  return templateDetailProblem(values.detail);
}

const isSame = (a: TemplateDetailValues, b: TemplateDetailValues) =>
  (Object.keys(a) as (keyof TemplateDetailValues)[]).every((k) => a[k] === b[k]);

/**
 * One template's detail in the admin template manager: loaded, edited with its problems shown
 * as typed, and saved (PUT template-detail) only when it has none. Publishing is the
 * `isPublished` field, saved with the rest.
 */
export const templateDetailMachine = setup({
  types: {
    input: {} as TemplateDetailInput,
    context: {} as TemplateDetailContext,
    events: {} as TemplateDetailEvent,
    // 'busy': loading or saving (the form waits).
    tags: {} as 'busy',
  },
  actors: {
    loadDetail: fromPromise<LoadedTemplateDetail, { id: string }>(() => {
      throw new Error('templateDetailMachine: provide the loadDetail actor');
    }),
    saveDetail: fromPromise<unknown, { id: string; values: TemplateDetailValues }>(() => {
      throw new Error('templateDetailMachine: provide the saveDetail actor');
    }),
  },
  guards: {
    canSave: ({ context }) => context.problem === null && !isSame(context.values, context.saved),
  },
  actions: {
    reportSaved: ({ context }) =>
      context.parentRef?.send({ type: 'template.saved', id: context.id }),
  },
}).createMachine({
  id: 'templateDetail',
  description:
    "An admin template's detail: loaded, edited with its problems checked as typed, and saved only when it has none and differs from what was saved.",
  context: ({ input }) => ({
    id: input.id,
    parentRef: input.parentRef ?? null,
    isLinked: false,
    values: EMPTY,
    saved: EMPTY,
    problem: null,
    error: null,
  }),
  initial: 'loading',
  states: {
    loading: {
      tags: ['busy'],
      invoke: {
        src: 'loadDetail',
        input: ({ context }) => ({ id: context.id }),
        onDone: {
          target: 'editing',
          actions: assign(({ event }) => {
            const { id: _id, isLinked, ...values } = event.output ?? { ...EMPTY, id: '' };
            return { values, saved: values, isLinked: !!isLinked, problem: null, error: null };
          }),
        },
        onError: {
          target: 'failed',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    failed: {
      on: { 'detail.reloadRequested': 'loading' },
    },
    editing: {
      on: {
        'detail.edited': {
          actions: assign(({ context, event }) => {
            const values = { ...context.values, ...event.changes };
            return { values, problem: formProblem(values) };
          }),
        },
        'detail.saveRequested': { guard: 'canSave', target: 'saving' },
      },
    },
    saving: {
      tags: ['busy'],
      invoke: {
        src: 'saveDetail',
        input: ({ context }) => ({ id: context.id, values: context.values }),
        onDone: {
          target: 'editing',
          actions: [assign({ saved: ({ context }) => context.values, error: null }), 'reportSaved'],
        },
        // The server's message (its own check of the detail, or a name taken) stays on show.
        onError: {
          target: 'editing',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
  },
});

export type TemplateDetailActorRef = ActorRefFrom<typeof templateDetailMachine>;
export type TemplateDetailSnapshot = SnapshotFrom<typeof templateDetailMachine>;
