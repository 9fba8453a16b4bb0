import type WebSocket from 'ws';

// The shapes the PVE client speaks in: its options, the parameters of a call, a task's status and
// the client itself. Every part of the client and its callers share them.

export interface PveClientOptions {
  /** Base URL of the PVE API, e.g. https://pve1.example:8006 (the client appends /api2/json). */
  url: string;
  /** API token id `user@realm!tokenname` and its secret: header `Authorization: PVEAPIToken=${tokenId}=${secret}`. */
  tokenId: string;
  tokenSecret: string;
  /**
   * Instead of the token: a user who signs in with a password (POST /access/ticket), for what
   * PVE allows only root@pam itself to do (a VM's `args`). The ticket goes in the
   * `PVEAuthCookie` cookie, with its CSRF token on writes, and is renewed before it expires.
   */
  login?: { username: string; password: string };
  /** PEM text of a CA that signs the PVE certificate (self-signed clusters). */
  ca?: string;
  /** SHA-256 fingerprint of the server certificate ("AB:CD:..", case-insensitive, colons optional): the
   *  connection is accepted only when the peer certificate has it, whoever signed it. */
  fingerprint?: string;
  /** Per-request timeout; default 30 s. */
  timeoutMs?: number;
  /** Attempts for calls safe to repeat (GET only); default 3, with back-off from `sleep`. */
  attempts?: number;
  /** Injected for tests; default setTimeout-based. */
  sleep?: (ms: number) => Promise<void>;
  /** Between task status polls when waitTask is not told otherwise; default 1 s. */
  taskIntervalMs?: number;
}

/** A call's parameters; a list (PVE's `array` parameters) is sent as the key repeated. */
export type PveParams = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface PveTaskStatus {
  status: 'running' | 'stopped';
  exitstatus?: string;
  type: string;
  node: string;
  upid: string;
}

export interface WaitTaskOptions {
  /** The last percentage the task log shows, 0..100, when it changes. */
  onProgress?: (percent: number) => void;
  /** Between status polls; default the client's taskIntervalMs. */
  intervalMs?: number;
  /** Gives up (PveError 'timeout') when the task still runs after this long; default: never. */
  timeoutMs?: number;
}

/** A file sent by upload: the multipart part's name, the file name PVE is told, and where it is. */
export interface UploadFile {
  field: string;
  name: string;
  path: string;
}

export interface PveClient {
  get<T>(path: string, params?: PveParams): Promise<T>;
  post<T>(path: string, params?: PveParams): Promise<T>;
  put<T>(path: string, params?: PveParams): Promise<T>;
  delete<T>(path: string, params?: PveParams): Promise<T>;
  /** Polls the task's status until it stops; resolves when it ended OK (or with WARNINGS), else
   *  rejects PveError 'task-failed' (or 'locked') whose message is the exit status. */
  waitTask(upid: string, options?: WaitTaskOptions): Promise<void>;
  /** A WebSocket to an API path (for vncwebsocket), with the same token header and TLS settings.
   *  It comes paused: attach the listeners, then `resume()` it. */
  openWebSocket(path: string, params?: PveParams): Promise<WebSocket>;
  /**
   * POSTs a local file as `multipart/form-data` (PVE's storage upload): the fields, then the file
   * as the part `fileField` named `file.name`. Streamed from disk; it times out only when no byte
   * moves for the client's timeout. Never repeated.
   */
  upload<T>(path: string, fields: PveParams, file: UploadFile): Promise<T>;
  /** Drops the kept-alive connections. */
  close(): void;
}
