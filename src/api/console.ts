import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { NoContent, nullable } from './codecs';
import type { ApiError, HttpClient } from './http';
import { Vm, VmCapabilities, VmNic } from './vm';

// The console page's calls (wire reference §4.10, §7 Console page). The page lives in its own
// tab: it signs in once with POST user/login, which sets the `topomojo.mks` cookie that
// authorizes the machine calls and the heartbeat from then on.

/** Ours: someone with the machine's console open (server/console/viewers.ts). */
export const ConsoleViewer = t.type({
  id: t.string,
  name: t.string,
  role: t.keyof({ player: null, admin: null, observer: null }),
  /** Whether their console drives the machine (false: view only). */
  control: t.boolean,
});
export type ConsoleViewer = t.TypeOf<typeof ConsoleViewer>;

/** Console address and ticket of a machine (wire reference §2.5 VmConsole). */
export const VmConsole = t.intersection([
  t.type({ id: t.string, isRunning: t.boolean }),
  t.partial({
    isolationId: nullable(t.string),
    name: nullable(t.string),
    /** '' or null when the machine is off or no ticket could be had. */
    url: nullable(t.string),
    /** The VNC password noVNC presents; null for consoles that are not VNC. */
    ticket: nullable(t.string),
    /** Ours: the console's sessions are recorded (the page says so). */
    recorded: t.boolean,
    /** Ours: the ticket only watches; the server drops this viewer's input. */
    viewOnly: t.boolean,
    /** Ours: a view-only console its viewer may reopen with control (administrators). */
    mayTakeControl: t.boolean,
    /** Ours: who has the console open now. */
    viewers: t.array(ConsoleViewer),
  }),
]);
export type VmConsole = t.TypeOf<typeof VmConsole>;

/** ISO and network choices of a machine (wire reference §2.5 VmOptions). */
export const VmOptions = t.partial({
  iso: nullable(t.array(t.string)),
  net: nullable(t.array(t.string)),
  /** Ours, with a machine's nets: its NICs and their networks now. */
  nics: nullable(t.array(VmNic)),
  /** Ours too: which changes the machine's hypervisor makes while it runs. */
  capabilities: nullable(VmCapabilities),
});
export type VmOptions = t.TypeOf<typeof VmOptions>;

/** Which network a NIC (0-based, as the server counts) should join. */
export interface NetChange {
  vmId: string;
  nic: number;
  net: string;
}

const vmPath = (id: string) => `vm/${encodeURIComponent(id)}`;

/** POST user/login with the signed-in user's token: sets the console cookie. */
export const signInConsole =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, { method: 'POST', path: 'user/login', signal });

/**
 * GET user/ping: keeps the console session alive. Cookie only, as the reference's console page
 * sends it: no Authorization header.
 */
export const pingConsole =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, { method: 'GET', path: 'user/ping', signal, authorization: '' });

/** GET vm-console/{id}: a fresh one-time ticket and the WebSocket address, if it runs. */
export const getVmConsole =
  (http: HttpClient) =>
  (vmId: string, signal: AbortSignal, control = false): TE.TaskEither<ApiError, VmConsole> =>
    http.request(VmConsole, {
      method: 'GET',
      // Ours: `control=true` asks for a console that drives the machine (administrators).
      path: `vm-console/${encodeURIComponent(vmId)}${control ? '?control=true' : ''}`,
      signal,
    });

/** GET vm/{id}/nets: the networks the machine's NICs may join. */
export const getVmNets =
  (http: HttpClient) =>
  (vmId: string, signal: AbortSignal): TE.TaskEither<ApiError, VmOptions> =>
    http.request(VmOptions, { method: 'GET', path: `${vmPath(vmId)}/nets`, signal });

/** PUT vm/{id}/change {key:'net', value:'{net}:{nic}'}: moves a NIC to another network. */
export const changeVmNet =
  (http: HttpClient) =>
  (change: NetChange, signal: AbortSignal): TE.TaskEither<ApiError, Vm> =>
    http.request(Vm, {
      method: 'PUT',
      path: `${vmPath(change.vmId)}/change`,
      body: { key: 'net', value: `${change.net}:${change.nic}` },
      signal,
    });
