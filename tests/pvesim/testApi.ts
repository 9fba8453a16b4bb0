import { expect, vi } from 'vitest';
import type { PveSimulator } from './simulator';

// The PVE API simulator's own tests call it over HTTP as the proxmox driver would, with these:
// a call and its reply as PVE sends it, the `data` of a successful one, and a task's end.

export interface Reply {
  status: number;
  reason: string;
  body: { data: unknown; errors?: Record<string, string>; message?: string };
}

export type Params = Record<string, string | number | readonly string[]>;

/** The simulator's API token as PVE takes it. */
export const tokenHeaders = (sim: PveSimulator): Record<string, string> => ({
  authorization: `PVEAPIToken=${sim.tokenId}=${sim.tokenSecret}`,
});

/** A fetch Response as a Reply: status, PVE's reason (the status text) and the JSON body. */
export async function replyOf(response: Response): Promise<Reply> {
  return {
    status: response.status,
    reason: response.statusText,
    body: (await response.json()) as Reply['body'],
  };
}

/** One call: params in the query (GET, DELETE) or as a form body (POST, PUT). */
export async function call(
  sim: PveSimulator,
  method: string,
  path: string,
  params: Params = {},
  headers: Record<string, string> = tokenHeaders(sim),
): Promise<Reply> {
  // A list goes as its key repeated, as PVE takes array parameters.
  const query = new URLSearchParams(
    Object.entries(params).flatMap(([k, v]): Array<[string, string]> =>
      Array.isArray(v) ? v.map((item) => [k, String(item)]) : [[k, String(v)]],
    ),
  );
  const inBody = method === 'POST' || method === 'PUT';
  const search = !inBody && query.size > 0 ? `?${query}` : '';
  const url = `${sim.url}/api2/json${path}${search}`;
  return replyOf(
    await fetch(url, {
      method,
      headers: inBody
        ? { ...headers, 'content-type': 'application/x-www-form-urlencoded' }
        : headers,
      ...(inBody ? { body: query.toString() } : {}),
    }),
  );
}

/** The `data` of a call that must succeed. */
export async function data<T>(sim: PveSimulator, method: string, path: string, params?: Params) {
  const reply = await call(sim, method, path, params);
  if (reply.status !== 200) throw new Error(`${method} ${path}: ${reply.status} ${reply.reason}`);
  return reply.body.data as T;
}

export interface TaskStatus {
  status: string;
  exitstatus?: string;
  type: string;
  node: string;
}

/** Polls a task until it has stopped; returns its final status. */
export async function waitTask(sim: PveSimulator, upid: string): Promise<TaskStatus> {
  const node = upid.split(':')[1];
  const path = `/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`;
  return vi.waitFor(
    async () => {
      const status = await data<TaskStatus>(sim, 'GET', path);
      expect(status.status).toBe('stopped');
      return status;
    },
    { timeout: 5_000, interval: 10 },
  );
}

/** Every line of a task's log. */
export async function taskLog(sim: PveSimulator, upid: string): Promise<string[]> {
  const node = upid.split(':')[1];
  const lines = await data<{ n: number; t: string }[]>(
    sim,
    'GET',
    `/nodes/${node}/tasks/${encodeURIComponent(upid)}/log`,
    { limit: 0 },
  );
  return lines.map((l) => l.t);
}
