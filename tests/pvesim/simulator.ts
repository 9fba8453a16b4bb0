import { randomUUID } from 'node:crypto';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createAuth } from './auth';
import { cloneRoutes } from './clone';
import { clusterRoutes } from './cluster';
import { messageOf, PveHttpError } from './errors';
import { qemuRoutes } from './qemu';
import { checkReply, checkRequest, type RawParam } from './schema';
import { createSdn, sdnRoutes, type VnetView } from './sdn';
import { snapshotRoutes } from './snapshots';
import { createCluster, createConfigLocks, type AgentExec, type SimVm } from './state';
import { storageRoutes } from './storage';
import { createTaskRunner } from './tasks';
import { createTimers } from './timers';
import { makeSelfSigned } from './tls';
import type { Call, Override, Routes, SimContext, SimSettings } from './types';
import { isUploadCall, readUpload } from './uploads';
import { createVncProxies, type VncProxies, type VncScreen } from './vnc';

// A SIMULATOR of the Proxmox VE REST API, for tests and local runs of HYPERVISOR=proxmox: not
// Proxmox VE, and nothing in it talks to one. It serves the endpoints Topoplay's PVE driver calls
// under /api2/json and behaves like PVE where the driver depends on it: API-token and ticket
// authentication, requests checked against PVE's published API schema (tests/pvesim/schema.ts),
// worker tasks with UPIDs and logs, clone locks and the nextid race, SDN changes that need an
// apply, VNC consoles over WebSocket with VNC authentication, ISO uploads (multipart) and deletes
// on each node's own storage 'local'. In strict mode (the default) every reply is also checked
// against the schema, so the simulator cannot drift from what PVE returns.

export type { AgentExec, SimVm } from './state';
export type { VnetView } from './sdn';
export type { Call, Handler, Routes, Session } from './types';

export interface PveSimulatorOptions {
  /** Default false (http); true: https with a self-signed certificate made with the openssl CLI. */
  tls?: boolean;
  /** Default 0: any free port, on 127.0.0.1. */
  port?: number;
  /** Default pve1, pve2, pve3 with 65536 MiB each. */
  nodes?: { name: string; maxmemMiB: number }[];
  /** Default 'topoplay@pve!driver' and a random secret. */
  tokenId?: string;
  tokenSecret?: string;
  /** root@pam's password for POST /access/ticket; null (the default): every login is refused. */
  rootPassword?: string | null;
  /** A linked clone's task time, default 300 ms. */
  cloneMs?: number;
  /** A full clone's task time, default 2000 ms, with progress lines in its log. */
  fullCloneMs?: number;
  /** Start/stop/shutdown/reset/template/snapshot/delete/config task time, default 150 ms. */
  taskMs?: number;
  /** The SDN reload task's time, default 1000 ms. */
  sdnReloadMs?: number;
  /** How long a second clone of the same source waits for its lock before failing, default 500 ms. */
  lockWaitMs?: number;
  /** After a start, the guest agent answers only after this, default 1000 ms. */
  agentDelayMs?: number;
  /** Default true: a reply that does not match PVE's schema is a 500 instead. */
  strict?: boolean;
  /** Seeded VM templates; default [{vmid 9000, 'topoplay-tiny', 'pve1', 512 MiB}]. */
  templates?: { vmid: number; name: string; node: string; memoryMiB: number }[];
  /** Seeded volids on storage 'local', on every node. */
  isos?: string[];
  /** The SDN zone (type vxlan), default 'topoplay'. */
  zone?: string;
  /**
   * A storage with snippets content (what `cicustom` names), its files in `dir`/snippets: a
   * start checks they are there. Default none: PVE's default storages hold no snippets.
   */
  snippets?: { storage: string; dir: string };
  log?: (line: string) => void;
  /**
   * Handlers that replace the simulator's own for an endpoint (or add one the schema has), to
   * inject faults in a driver's tests or to test the simulator's reply checking.
   */
  overrides?: Record<string, Override>;
  /** What VMs' consoles show after VNC authentication; default their drawn simulated screens. */
  vncScreen?: VncScreen;
}

export interface PveSimulator {
  /** Base URL, without /api2/json. */
  url: string;
  tokenId: string;
  tokenSecret: string;
  /** SHA-256 fingerprint of the certificate; null over http. */
  fingerprint: string | null;
  /** The self-signed certificate (PEM), to trust as a CA; null over http. */
  ca: string | null;
  vms(): SimVm[];
  vnets(): VnetView[];
  agentFiles(vmid: number): Record<string, string>;
  /**
   * A file the guest writes itself (a command run inside it, an image's own file), which its agent
   * then reads as any other; the VM must exist.
   */
  writeGuestFile(vmid: number, file: string, content: string): void;
  /** The commands the VM's guest agent ran, oldest first. */
  agentExecs(vmid: number): AgentExec[];
  /** Every handled request, in order: its API path (below /api2/json) and the status it got. */
  requests(): { method: string; path: string; status: number }[];
  /** Seeds an ISO (4 MiB of zeros) on every node. */
  addIso(volid: string): void;
  /** The node's ISO images on storage 'local' (not shared: each node has its own). */
  isoFiles(node: string): Array<{ volid: string; size: number; sha256: string }>;
  close(): Promise<void>;
}

const API_PREFIX = '/api2/json';
const VNC_WEBSOCKET = 'GET /nodes/{node}/qemu/{vmid}/vncwebsocket';
const MAX_BODY_BYTES = 1024 * 1024;

const DEFAULT_NODES = ['pve1', 'pve2', 'pve3'].map((name) => ({ name, maxmemMiB: 65536 }));
const DEFAULT_TEMPLATES = [{ vmid: 9000, name: 'topoplay-tiny', node: 'pve1', memoryMiB: 512 }];
const DEFAULT_ISOS = ['local:iso/00000000-0000-0000-0000-000000000000__tools.iso'];

/** A status line may carry only visible latin1 text. */
const statusText = (message: string): string =>
  message.replace(/[\r\n]+/g, ' ').replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

/** The API path below /api2/json with its segments decoded (a UPID's colons may come encoded). */
function apiPath(pathname: string): string {
  if (pathname !== API_PREFIX && !pathname.startsWith(`${API_PREFIX}/`)) {
    throw new PveHttpError(404, 'the PVE API simulator serves only /api2/json');
  }
  const rest = pathname.slice(API_PREFIX.length).replace(/\/+$/, '');
  return (rest || '/').split('/').map(decodeURIComponent).join('/');
}

/** Parameters as PVE takes them: form-encoded (or JSON) bodies, every value a string. */
async function readBody(request: IncomingMessage): Promise<Record<string, RawParam>> {
  const type = request.headers['content-type'] ?? '';
  // PVE's server takes multipart bodies for uploads only.
  if (/^\s*multipart\/form-data\b/i.test(type)) {
    throw new PveHttpError(506, `upload 'Content-Type '${type}' not implemented`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new PveHttpError(413, 'request entity too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return {};
  if ((request.headers['content-type'] ?? '').includes('application/json')) {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return {};
    return Object.fromEntries(
      Object.entries(parsed).map(([key, value]) => [
        key,
        Array.isArray(value) ? value.map(jsonText) : jsonText(value),
      ]),
    );
  }
  return paramsOf(new URLSearchParams(text));
}

/** A JSON body's value as PVE's parameter check reads it. */
const jsonText = (value: unknown): string =>
  typeof value === 'boolean'
    ? value
      ? '1'
      : '0'
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

/** Query or form parameters; a key given more than once is a list, as PVE reads it. */
function paramsOf(search: URLSearchParams): Record<string, RawParam> {
  const params: Record<string, RawParam> = {};
  for (const key of new Set(search.keys())) {
    const values = search.getAll(key);
    params[key] = values.length === 1 ? values[0]! : values;
  }
  return params;
}

/**
 * A call's parameters as sent: the query's, then the body's; an upload's body is its form
 * fields and its file.
 */
async function readParams(
  method: string,
  path: string,
  request: IncomingMessage,
  query: URLSearchParams,
  log: (line: string) => void,
): Promise<{ raw: Record<string, RawParam>; file?: Buffer }> {
  const fromQuery = paramsOf(query);
  if (isUploadCall(method, path)) return readUpload(request, fromQuery, log);
  const body = method === 'POST' || method === 'PUT' ? await readBody(request) : {};
  return { raw: { ...fromQuery, ...body } };
}

/** PVE's server refuses any transfer encoding: it reads bodies by their Content-Length. */
function checkTransferEncoding(request: IncomingMessage): void {
  const encoding = request.headers['transfer-encoding'];
  if (encoding === undefined) return;
  throw new PveHttpError(
    501,
    encoding.toLowerCase() === 'chunked'
      ? 'chunked transfer encoding not supported'
      : `Unknown transfer encoding '${encoding}'`,
  );
}

function sendJson(response: ServerResponse, status: number, body: unknown, message?: string) {
  response.statusCode = status;
  if (message !== undefined) response.statusMessage = statusText(message);
  response.setHeader('content-type', 'application/json;charset=UTF-8');
  response.end(JSON.stringify(body));
}

function resolveSettings(options: PveSimulatorOptions): SimSettings {
  return {
    cloneMs: options.cloneMs ?? 300,
    fullCloneMs: options.fullCloneMs ?? 2000,
    taskMs: options.taskMs ?? 150,
    sdnReloadMs: options.sdnReloadMs ?? 1000,
    lockWaitMs: options.lockWaitMs ?? 500,
    agentDelayMs: options.agentDelayMs ?? 1000,
  };
}

export async function startPveSimulator(options: PveSimulatorOptions = {}): Promise<PveSimulator> {
  const tls = options.tls ? await makeSelfSigned() : null;
  const tokenId = options.tokenId ?? 'topoplay@pve!driver';
  const tokenSecret = options.tokenSecret ?? randomUUID();
  const strict = options.strict ?? true;
  const log = options.log ?? (() => undefined);
  const nodes = options.nodes ?? DEFAULT_NODES;
  const timers = createTimers();
  const cluster = createCluster({
    nodes,
    templates: options.templates ?? DEFAULT_TEMPLATES,
    isos: options.isos ?? DEFAULT_ISOS,
  });
  const sdn = createSdn(options.zone ?? 'topoplay');
  // The consoles need the context and the context tells the consoles of stops: tied here.
  let vnc: VncProxies | null = null;
  const ctx: SimContext = {
    cluster,
    sdn,
    tasks: createTaskRunner(timers),
    locks: createConfigLocks(timers),
    timers,
    settings: resolveSettings(options),
    snippets: options.snippets ?? null,
    apiNode: nodes[0]?.name ?? 'pve1',
    vmStopped: (vmid, destroyed) => vnc?.vmStopped(vmid, destroyed),
    log,
  };
  const consoles = createVncProxies(ctx, tls?.cert ?? '', options.vncScreen);
  vnc = consoles;
  const auth = createAuth({ tokenId, tokenSecret, rootPassword: options.rootPassword ?? null });
  const routes: Routes = {
    ...clusterRoutes(ctx, tls?.fingerprint ?? null),
    ...qemuRoutes(ctx),
    ...cloneRoutes(ctx),
    ...snapshotRoutes(ctx),
    ...sdnRoutes(ctx),
    ...storageRoutes(ctx),
    ...consoles.routes,
    ...auth.routes,
  };
  // An override may call the simulator's own handler of its endpoint (to fail only sometimes).
  for (const [endpoint, override] of Object.entries(options.overrides ?? {})) {
    const own = routes[endpoint];
    routes[endpoint] = (call) => override(call, own);
  }
  const handled: { method: string; path: string; status: number }[] = [];

  const record = (method: string, path: string, status: number, message?: string) => {
    handled.push({ method, path, status });
    log(`PVE API simulator: ${method} ${path} ${status}${message ? ` ${message}` : ''}`);
  };

  /** Authentication, then the schema check: the call a handler gets, or a refusal. */
  const admit = (
    method: string,
    path: string,
    request: IncomingMessage,
    raw: Record<string, RawParam>,
  ) => {
    const isLogin = method === 'POST' && path === '/access/ticket';
    const session = isLogin
      ? { user: '', root: false }
      : auth.authenticate(method, request.headers);
    const check = checkRequest(method, path, raw);
    if (!check.ok) throw new PveHttpError(check.status, check.message, check.errors);
    const call: Call = { pathParams: check.pathParams, params: check.params, session };
    return { endpoint: check.endpoint, call };
  };

  const dispatch = async (endpoint: string, call: Call, method: string, path: string) => {
    const handler = routes[endpoint];
    if (!handler) {
      throw new PveHttpError(
        501,
        `Method '${method} ${path}' not implemented by the PVE API simulator`,
      );
    }
    const data: unknown = await handler(call);
    if (strict) {
      const problems = checkReply(endpoint, data);
      if (problems.length > 0) {
        throw new PveHttpError(
          500,
          `simulator reply does not match the PVE schema: ${problems.join('; ')}`,
        );
      }
    }
    return data;
  };

  const refusal = (error: unknown): PveHttpError => {
    if (error instanceof PveHttpError) return error;
    log(`PVE API simulator: internal error: ${messageOf(error)}`);
    return new PveHttpError(500, `PVE API simulator error: ${messageOf(error)}`);
  };

  const onRequest = async (request: IncomingMessage, response: ServerResponse) => {
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://pvesim');
    let path = url.pathname;
    try {
      path = apiPath(url.pathname);
      checkTransferEncoding(request);
      const { raw, file } = await readParams(method, path, request, url.searchParams, log);
      const admitted = admit(method, path, request, raw);
      const call: Call = file ? { ...admitted.call, file } : admitted.call;
      const data = await dispatch(admitted.endpoint, call, method, path);
      sendJson(response, 200, { data });
      record(method, path, 200);
    } catch (error) {
      const refused = refusal(error);
      const errors =
        refused.errors && Object.keys(refused.errors).length > 0 ? refused.errors : null;
      sendJson(
        response,
        refused.status,
        { data: null, message: `${refused.message}\n`, ...(errors ? { errors } : {}) },
        refused.message,
      );
      record(method, path, refused.status, refused.message);
    }
  };

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://pvesim');
    let path = url.pathname;
    try {
      path = apiPath(url.pathname);
      const { endpoint, call } = admit(method, path, request, Object.fromEntries(url.searchParams));
      if (endpoint !== VNC_WEBSOCKET) {
        throw new PveHttpError(501, 'the PVE API simulator has no WebSocket at this path');
      }
      consoles.upgrade(call, request, socket, head);
      record(method, path, 101);
    } catch (error) {
      const refused = refusal(error);
      socket.end(
        `HTTP/1.1 ${refused.status} ${statusText(refused.message)}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      record(method, path, refused.status, refused.message);
    }
  };

  const listener = (request: IncomingMessage, response: ServerResponse) => {
    void onRequest(request, response);
  };
  const server = tls
    ? createHttpsServer({ key: tls.key, cert: tls.cert }, listener)
    : createHttpServer(listener);
  server.on('upgrade', onUpgrade);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    tokenId,
    tokenSecret,
    fingerprint: tls?.fingerprint ?? null,
    ca: tls?.cert ?? null,
    vms: () => [...cluster.vms.values()].sort((a, b) => a.vmid - b.vmid).map(cluster.inspect),
    vnets: () => sdn.inspect(),
    agentFiles: (vmid) => ({ ...(cluster.vms.get(vmid)?.agentFiles ?? {}) }),
    writeGuestFile(vmid, file, content) {
      const vm = cluster.vms.get(vmid);
      if (!vm) throw new Error(`PVE simulator: no VM ${vmid}`);
      vm.agentFiles[file] = content;
    },
    agentExecs: (vmid) => (cluster.vms.get(vmid)?.agentExecs ?? []).map((e) => ({ ...e })),
    requests: () => [...handled],
    addIso: (volid) => cluster.isos.seed(volid),
    isoFiles: (node) =>
      cluster.isos.list(node).map(({ volid, size, sha256 }) => ({ volid, size, sha256 })),
    async close() {
      timers.clear();
      ctx.locks.close();
      consoles.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
