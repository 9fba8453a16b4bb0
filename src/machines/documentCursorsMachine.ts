import { assertEvent, assign, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';

/** Cursor moves are sent at most this often (spec §9). */
export const CURSOR_THROTTLE_MS = 1_000;

/** Where the cursors are, as CursorChanged carries them (Monaco positions, 1-based). */
export interface CursorPositions {
  positions: Array<{ lineNumber: number; column: number }>;
}

/** Someone else's cursors (DOCUMENT.CURSOR), shown with their name. */
export interface RemoteCursor extends CursorPositions {
  actorId: string;
  name: string;
}

/** Another author's cursors moved (DOCUMENT.CURSOR); the app passes the positions as they came. */
export type RemoteCursorEvent = {
  type: 'document.cursorMovedRemotely';
  actorId: string;
  name: string;
  positions: unknown;
};

export type DocumentCursorsEvent =
  /** The user's cursors moved in the editor. */
  ({ type: 'editor.cursorMoved' } & CursorPositions) | RemoteCursorEvent;

export interface DocumentCursorsInput {
  workspaceId: string;
}

export interface DocumentCursorsContext {
  workspaceId: string;
  /** The cursor move waiting for the throttle, if any. */
  cursor: CursorPositions | null;
  /** Other people's cursors, by actor id. */
  remoteCursors: Record<string, RemoteCursor>;
}

const isPositions = (value: unknown): value is CursorPositions['positions'] =>
  Array.isArray(value) &&
  value.every(
    (p) =>
      typeof p === 'object' &&
      p !== null &&
      'lineNumber' in p &&
      typeof p.lineNumber === 'number' &&
      'column' in p &&
      typeof p.column === 'number',
  );

/** Broadcasts the kept cursor move and forgets it. */
const SEND_CURSOR = [
  {
    type: 'broadcastCursor',
    params: ({ context }: { context: DocumentCursorsContext }) => ({
      workspaceId: context.workspaceId,
      cursor: context.cursor ?? { positions: [] },
    }),
  },
  'clearCursor',
] as const;

/**
 * The document's cursors (spec §4, §9): the user's are broadcast at most once a second, the
 * latest move last; other authors' are kept by actor id, with their names, to be shown.
 */
export const documentCursorsMachine = setup({
  types: {
    input: {} as DocumentCursorsInput,
    context: {} as DocumentCursorsContext,
    events: {} as DocumentCursorsEvent,
  },
  delays: { cursorThrottle: CURSOR_THROTTLE_MS },
  actions: {
    /** CursorChanged(workspaceId, positions): fire and forget, the next move replaces it. */
    broadcastCursor: (_, _params: { workspaceId: string; cursor: CursorPositions }) => {
      throw new Error("documentCursorsMachine: 'broadcastCursor' is provided by the app (src/app)");
    },
    keepCursor: assign({
      cursor: ({ context, event }) => {
        assertEvent(event, 'editor.cursorMoved');
        return isPositions(event.positions) ? { positions: event.positions } : context.cursor;
      },
    }),
    clearCursor: assign({ cursor: null }),
    showRemoteCursor: assign({
      remoteCursors: ({ context, event }) => {
        assertEvent(event, 'document.cursorMovedRemotely');
        const { positions } = event;
        const list =
          typeof positions === 'object' && positions !== null && 'positions' in positions
            ? positions.positions
            : undefined;
        if (!isPositions(list) || typeof event.actorId !== 'string') return context.remoteCursors;
        return {
          ...context.remoteCursors,
          [event.actorId]: { actorId: event.actorId, name: event.name ?? '', positions: list },
        };
      },
    }),
  },
  guards: {
    hasCursor: ({ context }) => context.cursor !== null,
  },
}).createMachine({
  id: 'documentCursors',
  description:
    "The document's cursors: the user's are sent at most once a second, the latest last; other authors' are kept with their names.",
  context: ({ input }) => ({ workspaceId: input.workspaceId, cursor: null, remoteCursors: {} }),
  on: { 'document.cursorMovedRemotely': { actions: 'showRemoteCursor' } },
  initial: 'idle',
  states: {
    idle: {
      on: {
        'editor.cursorMoved': { target: 'throttled', actions: ['keepCursor', ...SEND_CURSOR] },
      },
    },
    /** A move was sent less than a second ago: the next one waits for the throttle. */
    throttled: {
      after: {
        cursorThrottle: [
          { guard: 'hasCursor', target: 'throttled', reenter: true, actions: [...SEND_CURSOR] },
          { target: 'idle' },
        ],
      },
      on: { 'editor.cursorMoved': { actions: 'keepCursor' } },
    },
  },
});

export type DocumentCursorsActorRef = ActorRefFrom<typeof documentCursorsMachine>;
export type DocumentCursorsSnapshot = SnapshotFrom<typeof documentCursorsMachine>;
