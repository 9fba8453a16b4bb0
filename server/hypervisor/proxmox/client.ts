import type { PveClient, PveClientOptions } from './clientTypes';
import { createConnection } from './connection';
import { DEFAULT_TASK_INTERVAL_MS, waitTask } from './tasks';
import { upload } from './upload';
import { openWebSocket } from './webSocket';

// A thin client of the Proxmox VE REST API (/api2/json), written here because the npm PVE clients
// are GPL-3.0. It speaks what the driver needs and no more: four verbs with PVE's parameter
// encoding, PVE's errors turned into PveError kinds, retries of reads only, task waiting with
// progress from the task log, and WebSockets (vncwebsocket) with the same credentials and TLS.
// Each area lives in its own module: the connection (exchange, credentials, retries) with its
// TLS agent, tasks, WebSockets and uploads; this one puts them together.

export { isLockError, PveError, type PveErrorKind } from './pveErrors';
export type {
  PveClient,
  PveClientOptions,
  PveParams,
  PveTaskStatus,
  UploadFile,
  WaitTaskOptions,
} from './clientTypes';
export { DEFAULT_ATTEMPTS, DEFAULT_TIMEOUT_MS, RETRY_BASE_MS, TICKET_RENEW_MS } from './connection';
export { DEFAULT_TASK_INTERVAL_MS, parseUpid } from './tasks';

export function createPveClient(options: PveClientOptions): PveClient {
  const connection = createConnection(options);
  const taskIntervalMs = options.taskIntervalMs ?? DEFAULT_TASK_INTERVAL_MS;
  return {
    upload: (path, fields, file) => upload(connection, path, fields, file),
    get: (path, params) => connection.call('GET', path, params),
    post: (path, params) => connection.call('POST', path, params),
    put: (path, params) => connection.call('PUT', path, params),
    delete: (path, params) => connection.call('DELETE', path, params),
    waitTask: (upid, waitOptions) => waitTask(connection, taskIntervalMs, upid, waitOptions),
    openWebSocket: (path, params) => openWebSocket(connection, path, params),
    close: () => connection.agent.destroy(),
  };
}
