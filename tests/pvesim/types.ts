import type { ParamValue } from './schema';
import type { Sdn } from './sdn';
import type { Cluster, ConfigLocks } from './state';
import type { TaskRunner } from './tasks';
import type { Timers } from './timers';

// What the PVE API simulator's handlers share: the caller's session, the checked call, and the
// simulated cluster with its task runner and settings.

export interface Session {
  /** `user@realm` for a ticket, `user@realm!token` for an API token. */
  user: string;
  /** A root@pam ticket session: the only caller PVE lets set root-only options such as `args`. */
  root: boolean;
}

export interface Call {
  pathParams: Record<string, string>;
  /** Query or body parameters, typed by the schema check. */
  params: Record<string, ParamValue>;
  session: Session;
  /** An upload's file part (POST .../upload); its multipart filename is the `filename` parameter. */
  file?: Buffer;
}

/** Returns the reply's `data`, or throws a PveHttpError. */
export type Handler = (call: Call) => unknown;

/** Handlers by schema endpoint, e.g. 'POST /nodes/{node}/qemu/{vmid}/clone'. */
export type Routes = Record<string, Handler>;

/** A test's handler of an endpoint, given the simulator's own (undefined for a new endpoint). */
export type Override = (call: Call, own: Handler | undefined) => unknown;

export interface SimSettings {
  cloneMs: number;
  fullCloneMs: number;
  taskMs: number;
  sdnReloadMs: number;
  lockWaitMs: number;
  agentDelayMs: number;
}

export interface SimContext {
  cluster: Cluster;
  sdn: Sdn;
  tasks: TaskRunner;
  locks: ConfigLocks;
  timers: Timers;
  settings: SimSettings;
  /** The storage with snippets content and its folder of real files; null: none. */
  snippets: { storage: string; dir: string } | null;
  /** The node that answers cluster-wide calls (its name goes into their UPIDs). */
  apiNode: string;
  /** A VM stopped or was destroyed: its consoles show it and close. */
  vmStopped(vmid: number, destroyed: boolean): void;
  log(line: string): void;
}

/** The path parameter `vmid` as a number (the schema check made sure it is one). */
export const vmidOf = (call: Call): number => Number(call.pathParams.vmid);

/** The path parameter `node`. */
export const nodeOf = (call: Call): string => call.pathParams.node ?? '';
