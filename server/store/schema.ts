import type { Generated } from 'kysely';

// One schema for SQLite and PostgreSQL. Column types are chosen so both engines return the same
// JavaScript values: times are integer milliseconds since the epoch (0 = unset, which the API
// writes as 0001-01-01T00:00:00+00:00), flags are integers 0/1, JSON documents are text.
// Columns are snake_case in SQL and camelCase in TypeScript (Kysely's CamelCasePlugin).

export type Flag = 0 | 1;

export interface UserTable {
  id: string;
  name: string;
  scope: string;
  workspaceLimit: number;
  gamespaceLimit: number;
  gamespaceMaxMinutes: number;
  gamespaceCleanupGraceMinutes: number;
  role: number;
  lastIdpAssignedRole: number | null;
  serviceAccountClientId: string | null;
  whenCreated: number;
  /** 1 when the account may register other people for a game (administrators always may). */
  registrar: number;
}

export interface ApiKeyTable {
  id: string;
  userId: string;
  name: string;
  hash: string;
  whenCreated: number;
}

export interface WorkspaceTable {
  id: string;
  name: string;
  description: string;
  tags: string;
  author: string;
  audience: string;
  shareCode: string;
  templateScope: string;
  isPublished: Flag;
  templateLimit: number;
  hostAffinity: Flag;
  useUplinkSwitch: Flag;
  durationMinutes: number;
  launchCount: number;
  lastActivity: number;
  challenge: string;
  whenCreated: number;
  /** Record its gamespaces' consoles (migration 009); null or absent: the server's default. */
  recordConsoles?: Flag | null;
}

export interface TemplateTable {
  id: string;
  name: string;
  description: string;
  audience: string;
  iso: string;
  networks: string;
  guestinfo: string;
  isHidden: Flag;
  isPublished: Flag;
  isLinked: Flag;
  detail: string | null;
  parentId: string | null;
  replicas: number;
  variant: number;
  workspaceId: string | null;
  whenCreated: number;
}

export interface GamespaceTable {
  id: string;
  name: string;
  managerId: string;
  managerName: string;
  graderKey: string;
  whenCreated: number;
  startTime: number;
  endTime: number;
  expirationTime: number;
  cleanupGraceMinutes: number;
  cleaned: Flag;
  allowReset: Flag;
  challenge: string;
  workspaceId: string | null;
  variant: number;
  playerCount: number;
}

export interface WorkerTable {
  subjectId: string;
  workspaceId: string;
  subjectName: string;
  permission: number;
}

export interface PlayerTable {
  subjectId: string;
  gamespaceId: string;
  subjectName: string;
  permission: number;
}

export interface DispatchTable {
  id: string;
  referenceId: string;
  trigger: string;
  targetGroup: string;
  targetName: string;
  result: string;
  error: string;
  whenUpdated: number;
  whenCreated: number;
}

export interface FavoriteTable {
  id: string;
  userId: string;
  targetId: string;
  whenCreated: number;
}

/** Local accounts of the embedded identity provider; `id` is the subject (`sub`) of its tokens. */
export interface IdentityAccountTable {
  id: string;
  username: string;
  name: string;
  passwordHash: string;
  whenCreated: number;
  /** 1 when an administrator disabled the account: no sign-in, no token refresh. */
  disabled: Generated<number>;
}

/** Storage of the embedded identity provider (sessions, grants, codes, interactions). */
export interface IdentityPayloadTable {
  id: string;
  model: string;
  payload: string;
  grantId: string | null;
  userCode: string | null;
  uid: string | null;
  expiresAt: number | null;
}

/** Server secrets and settings that must survive restarts and be shared by every server process. */
export interface KeyValueTable {
  key: string;
  value: string;
}

/** A sim hypervisor machine (server/hypervisor/sim). `taskId` '' means no task is running. */
export interface VmTable {
  id: string;
  name: string;
  tag: string;
  status: string;
  state: string;
  diskPath: string;
  /** JSON string[]: each NIC's net, '' when disconnected. */
  nics: string;
  iso: string;
  bootDelay: number;
  guestSettings: string;
  /** JSON VmQuestion, '' when there is none. */
  question: string;
  taskId: string;
  taskName: string;
  taskStarted: number;
  taskDuration: number;
  /** The power state the task leaves behind. */
  taskOutcome: string;
  whenCreated: number;
}

/** A disk the sim hypervisor copied (or is copying) from its source. */
export interface VmDiskTable {
  path: string;
  started: number;
  duration: number;
}

/** One Yjs update of a workspace document's co-editing log (migration 003). */
export interface DocumentUpdateTable {
  id: string;
  workspaceId: string;
  /** A Yjs update (format v1), base64. */
  update: string;
  whenCreated: number;
}

/** A workspace's warm pool (migration 007, server/core/pools). */
export interface PoolTable {
  workspaceId: string;
  /** Sets to keep ready; 0: no pool. */
  size: number;
  /** Launches that found no ready set. */
  misses: number;
  updated: number;
}

export type PooledSetState = 'warming' | 'ready' | 'claimed' | 'failed' | 'drained';

/** One pooled machine set; `id` is the isolation tag its machines are deployed under. */
export interface PooledSetTable {
  id: string;
  workspaceId: string;
  variant: number;
  /** What its machines were made from (the templates of its variant), as core hashes it. */
  fingerprint: string;
  state: PooledSetState;
  created: number;
  changed: number;
  claimedAt: number;
  /** The gamespace that claimed it, '' until then. */
  claimedBy: string;
}

/** "N launches of the workspace at `at`": the pool's target is raised around that time. */
export interface PoolScheduleTable {
  id: string;
  workspaceId: string;
  count: number;
  at: number;
  created: number;
}

/** One event of a gamespace's log (migration 008, server/core/gameEvents.ts); '' is absent. */
export interface GameEventTable {
  id: string;
  gamespaceId: string;
  kind: string;
  at: number;
  actorId: string;
  actorName: string;
  machineId: string;
  machineName: string;
  detail: string;
  /** A submission's score; null on every other event. */
  score: number | null;
}

/** One recorded console session (migration 009, server/console/recordings.ts). */
export interface ConsoleRecordingTable {
  id: string;
  gamespaceId: string;
  machineId: string;
  machineName: string;
  userId: string;
  userName: string;
  startedAt: number;
  /** 0 while the session is open. */
  endedAt: number;
  durationMs: number;
  /** Bytes of the record stream, uncompressed. */
  bytes: number;
  truncated: Flag;
  /** The gzip file of the record stream, relative to the recordings folder. */
  file: string;
}

/** One answer-sharing alert (migration 010, server/core/answerAlerts.ts). */
export interface AlertTable {
  id: string;
  at: number;
  workspaceId: string;
  /** 'shared' | 'canary'. */
  kind: string;
  gamespaceId: string;
  /** Whose generated answer was submitted; null for a canary. */
  otherGamespaceId: string | null;
  sectionIndex: number;
  /** '' when the set has no name. */
  sectionName: string;
  questionIndex: number;
  questionText: string;
  submitterNames: string;
  ownerNames: string;
  /** The answer submitted: for observers, never for players. */
  answer: string;
}

/** One help request of a gamespace (migration 011, server/core/helpRequests.ts); '' and 0 are absent. */
export interface HelpRequestTable {
  id: string;
  gamespaceId: string;
  workspaceId: string;
  gamespaceName: string;
  /** Who raised it. */
  playerId: string;
  playerName: string;
  message: string;
  status: 'open' | 'answered' | 'cancelled';
  raisedAt: number;
  claimedById: string;
  claimedByName: string;
  claimedAt: number;
  answer: string;
  answeredById: string;
  answeredByName: string;
  /** When it was answered or cancelled. */
  closedAt: number;
}

export interface Database {
  users: UserTable;
  apiKeys: ApiKeyTable;
  workspaces: WorkspaceTable;
  templates: TemplateTable;
  gamespaces: GamespaceTable;
  workers: WorkerTable;
  players: PlayerTable;
  dispatches: DispatchTable;
  workspaceFavorites: FavoriteTable;
  gamespaceFavorites: FavoriteTable;
  templateFavorites: FavoriteTable;
  identityAccounts: IdentityAccountTable;
  identityPayloads: IdentityPayloadTable;
  keyValues: KeyValueTable;
  vms: VmTable;
  vmDisks: VmDiskTable;
  documentUpdates: DocumentUpdateTable;
  pools: PoolTable;
  poolSets: PooledSetTable;
  poolSchedules: PoolScheduleTable;
  gameEvents: GameEventTable;
  consoleRecordings: ConsoleRecordingTable;
  alerts: AlertTable;
  helpRequests: HelpRequestTable;
  /** Kysely's own bookkeeping, listed so the type checker knows it exists. */
  kyselyMigration: { name: string; timestamp: Generated<string> };
}
