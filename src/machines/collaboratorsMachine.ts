import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { Worker } from '../api/workspace';
import { errorMessage } from '../domain/text';

/** A collaborator as the Settings tab lists them. */
export interface Collaborator {
  subjectId: string;
  /** The name the server stored, or 'anonymous'. */
  name: string;
  /** 'manager', 'editor' or 'none' (hub payloads carry the flags: 255 is a manager). */
  permission: string;
}

export type CollaboratorsEvent =
  /** Remove was pressed for a collaborator: ask for confirmation first (spec §5). */
  | { type: 'collaborator.removeRequested'; subjectId: string }
  | { type: 'collaborator.removeConfirmed' }
  | { type: 'collaborator.removeCancelled' }
  /** The user closed the alert at `index` of the error list. */
  | { type: 'collaborator.errorDismissed'; index: number }
  /** TOPO.UPDATED carried the workspace's workers. */
  | { type: 'workers.updatedRemotely'; workers: Worker[] };

export interface CollaboratorsInput {
  workspaceId: string;
  workers: readonly Worker[];
}

export interface CollaboratorsContext {
  workspaceId: string;
  collaborators: Collaborator[];
  /** The collaborator being confirmed or removed. */
  target: Collaborator | null;
  /** Failed removals not yet dismissed, as errorMessage says them (ActionForbidden for the last manager). */
  errors: string[];
}

const PERMISSION_NAMES: Record<number, string> = { 0: 'none', 1: 'editor', 255: 'manager' };

const permissionName = (permission: Worker['permission']): string =>
  typeof permission === 'number'
    ? (PERMISSION_NAMES[permission] ?? 'editor')
    : (permission ?? 'none');

export const collaboratorsOf = (workers: readonly Worker[] | null | undefined): Collaborator[] =>
  (workers ?? []).map((worker) => ({
    subjectId: worker.subjectId,
    name: worker.subjectName || 'anonymous',
    permission: permissionName(worker.permission),
  }));

/**
 * The collaborator who is the workspace's only manager, if there is one: the server refuses to
 * remove them (a workspace keeps a manager), so Remove is not offered for them.
 */
export const onlyManagerId = (collaborators: readonly Collaborator[]): string | null => {
  const managers = collaborators.filter((c) => c.permission === 'manager');
  return managers.length === 1 ? (managers[0]?.subjectId ?? null) : null;
};

const notProvided = (name: string): Error =>
  new Error(`collaboratorsMachine: '${name}' is provided by the app (src/app)`);

/**
 * The workspace's collaborators (spec §2 Settings tab, §6): a list with Remove, which asks for
 * confirmation, then calls the server; a refusal (the last manager, a non-manager asking) is
 * listed as a dismissible error. The list follows the workspace's remote updates.
 */
export const collaboratorsMachine = setup({
  types: {
    input: {} as CollaboratorsInput,
    context: {} as CollaboratorsContext,
    events: {} as CollaboratorsEvent,
  },
  actors: {
    /** DELETE workspace/{workspaceId}/worker/{subjectId}. */
    removeWorker: fromPromise<unknown, { workspaceId: string; subjectId: string }>(() => {
      throw notProvided('removeWorker');
    }),
  },
  actions: {
    replaceWorkers: assign({
      collaborators: ({ context, event }) =>
        event.type === 'workers.updatedRemotely' && event.workers !== undefined
          ? collaboratorsOf(event.workers)
          : context.collaborators,
    }),
    dismissError: assign({
      errors: ({ context, event }) =>
        event.type === 'collaborator.errorDismissed'
          ? context.errors.filter((_, i) => i !== event.index)
          : context.errors,
    }),
  },
  guards: {
    /** A listed collaborator other than the only manager. */
    isRemovableCollaborator: ({ context, event }) =>
      event.type === 'collaborator.removeRequested' &&
      event.subjectId !== onlyManagerId(context.collaborators) &&
      context.collaborators.some((c) => c.subjectId === event.subjectId),
  },
}).createMachine({
  id: 'collaborators',
  description:
    'The collaborators list: Remove (not offered for the only manager) asks for confirmation, then removes the worker; refusals are listed as dismissible errors; remote updates replace the list.',
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    collaborators: collaboratorsOf(input.workers),
    target: null,
    errors: [],
  }),
  on: {
    'workers.updatedRemotely': { actions: 'replaceWorkers' },
    'collaborator.errorDismissed': { actions: 'dismissError' },
  },
  initial: 'idle',
  states: {
    idle: {
      on: {
        'collaborator.removeRequested': {
          guard: 'isRemovableCollaborator',
          target: 'confirming',
          actions: assign({
            target: ({ context, event }) =>
              context.collaborators.find((c) => c.subjectId === event.subjectId) ?? null,
          }),
        },
      },
    },
    confirming: {
      on: {
        'collaborator.removeConfirmed': 'removing',
        'collaborator.removeCancelled': { target: 'idle', actions: assign({ target: null }) },
      },
    },
    removing: {
      invoke: {
        id: 'removeWorker',
        src: 'removeWorker',
        input: ({ context }) => ({
          workspaceId: context.workspaceId,
          subjectId: context.target?.subjectId ?? '',
        }),
        onDone: {
          target: 'idle',
          actions: assign({
            collaborators: ({ context }) =>
              context.collaborators.filter((c) => c.subjectId !== context.target?.subjectId),
            target: null,
          }),
        },
        onError: {
          target: 'idle',
          actions: assign({
            errors: ({ context, event }) => [...context.errors, errorMessage(event.error)],
            target: null,
          }),
        },
      },
    },
  },
});

export type CollaboratorsActorRef = ActorRefFrom<typeof collaboratorsMachine>;
export type CollaboratorsSnapshot = SnapshotFrom<typeof collaboratorsMachine>;
