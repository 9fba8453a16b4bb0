// A gamespace's event log: what happened in it, when and by whom, for observers (the gamespace
// browser's timeline) and for the console recordings' replay timeline. It records that something
// happened, never what a player typed or copied.

/** What happened. */
export type GameEventKind =
  | 'deploy'
  | 'console.open'
  | 'console.close'
  | 'file.put'
  | 'clipboard.paste'
  | 'clipboard.copy'
  | 'submission'
  | 'extension'
  | 'complete'
  // Ours: a submission of another gamespace's generated answer, or of a canary (answerAlerts.ts).
  | 'alert'
  // A player's help request raised, claimed, answered or cancelled (helpRequests.ts).
  | 'help.raise'
  | 'help.claim'
  | 'help.answer'
  | 'help.cancel';

/** One event as it is recorded. */
export interface NewGameEvent {
  readonly gamespaceId: string;
  readonly kind: GameEventKind;
  /** Who did it; absent when the system did (a deploy by the launch, the game's end). */
  readonly actorId?: string;
  readonly actorName?: string;
  /** The machine it concerns, when it concerns one. */
  readonly machineId?: string;
  readonly machineName?: string;
  /** A short text a person reads: a file's name and size, a question set's score line. */
  readonly detail?: string;
  /** A submission's score after grading. */
  readonly score?: number;
  /** When, in ms since the epoch; now when absent. */
  readonly at?: number;
}

/** One event as it is read back. */
export interface GameEvent extends NewGameEvent {
  readonly id: string;
  readonly at: number;
}

/** Where events are kept and read from. */
export interface GameEventLog {
  record(event: NewGameEvent): Promise<void>;
  /** The gamespace's events, oldest first. */
  list(gamespaceId: string): Promise<readonly GameEvent[]>;
  /** Removes the gamespace's events, when the gamespace is deleted. */
  removeFor(gamespaceId: string): Promise<void>;
  /**
   * Calls `listener` with each event once it is stored (the observers' live feed); returns how to
   * stop. A listener must return at once and never throw.
   */
  subscribe(listener: (event: GameEvent) => void): () => void;
}
