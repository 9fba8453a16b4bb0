import type { FastifyInstance, FastifyRequest } from 'fastify';
import type {} from '@fastify/websocket';
import type { WebSocket } from 'ws';
import { every, realClock, type Clock } from '../clock';
import type { HypervisorDriver, Vm } from '../hypervisor/driver';
import { untagged } from '../hypervisor/driver';
import { createMachineDisplay, type MachineDisplay } from './display';
import { startRfbSession } from './rfb';
import type { ConsoleTicketStore } from './tickets';
import { anonymousErrorResponses } from '../http/schemas';

// GET /api/console/vnc/:id?ticket=…: the VNC-over-WebSocket console of a machine whose console
// this server draws itself (the sim driver's). The one-time ticket from GET /api/vm-console/{id}
// is the only credential, since a browser cannot put headers on a WebSocket; the route is
// anonymous to the HTTP auth hook for that reason. A refused viewer is closed with 1008 before
// any RFB byte, so noVNC reports a failed connection rather than a protocol error.

/** How often a machine with open consoles is checked for having stopped or gone. */
export const MACHINE_CHECK_MS = 2_000;
export const CLOSE_POLICY_VIOLATION = 1008;

interface Watched {
  display: MachineDisplay;
  viewers: number;
  stop(): void;
}

/** Why an open console ends, by what became of its machine; null while it runs. */
export function endOf(vm: Vm | null): { state: string; message: string } | null {
  if (!vm || vm.status !== 'deployed') return { state: 'deleted', message: '[machine deleted]' };
  if (vm.state === 'running') return null;
  const state = vm.state === 'suspended' ? 'suspended' : 'stopped';
  return { state, message: `[machine ${state}]` };
}

function createDisplays(driver: HypervisorDriver, log: FastifyInstance['log'], clock: Clock) {
  const watched = new Map<string, Watched>();

  const watch = (vm: Vm): Watched => {
    const display = createMachineDisplay(untagged(vm.name));
    const check = (current: Vm | null) => {
      const end = endOf(current);
      if (end) display.powerOff(end.state, end.message);
    };
    // The driver announces changes it makes on its own (tasks ending); a stop or delete through
    // the API is not announced, so the machine is also looked at now and then.
    const unsubscribe = driver.subscribe((event) => {
      if (event.vm.id !== vm.id) return;
      check(event.action === 'VM.DELETE' ? null : event.vm);
    });
    const stopChecks = every(clock, MACHINE_CHECK_MS, () => {
      driver.load(vm.id).then(check, (err: unknown) => log.warn({ err }, 'console machine check'));
    });
    return {
      display,
      viewers: 0,
      stop() {
        unsubscribe();
        stopChecks();
      },
    };
  };

  return {
    /** The machine's display and the viewer's release; the screen goes with its last viewer. */
    acquire(vm: Vm): { display: MachineDisplay; release(): void } {
      const existing = watched.get(vm.id);
      // A machine that stopped and started again while its last viewers were closing gets a
      // fresh screen rather than the one that says it stopped.
      const entry = existing?.display.isRunning() ? existing : watch(vm);
      if (existing && existing !== entry) existing.stop();
      watched.set(vm.id, entry);
      entry.viewers += 1;
      let released = false;
      return {
        display: entry.display,
        release() {
          if (released) return;
          released = true;
          entry.viewers -= 1;
          if (entry.viewers > 0) return;
          entry.stop();
          if (watched.get(vm.id) === entry) watched.delete(vm.id);
        },
      };
    },
    close(): void {
      for (const entry of watched.values()) entry.stop();
      watched.clear();
    },
  };
}

type Admission = { vm: Vm } | { refused: string };

const asBuffer = (data: Buffer | ArrayBuffer | Buffer[]): Buffer =>
  Array.isArray(data)
    ? Buffer.concat(data)
    : Buffer.isBuffer(data)
      ? data
      : Buffer.from(new Uint8Array(data));

export async function consoleRoutes(
  app: FastifyInstance,
  options: { driver: HypervisorDriver; tickets: ConsoleTicketStore; clock?: Clock },
): Promise<void> {
  const { driver, tickets } = options;
  const displays = createDisplays(driver, app.log, options.clock ?? realClock);
  const admissions = new WeakMap<FastifyRequest, Admission>();
  app.addHook('onClose', async () => displays.close());

  const admit = async (vmId: string, ticket: string | undefined): Promise<Admission> => {
    if (!ticket || !(await tickets.redeem(ticket, vmId))) return { refused: 'Invalid ticket' };
    const vm = await driver.load(vmId);
    if (!vm || endOf(vm) || vm.id !== vmId) return { refused: 'The machine is not running.' };
    return { vm };
  };

  app.get<{ Params: { id: string }; Querystring: { ticket?: string } }>(
    '/api/console/vnc/:id',
    {
      websocket: true,
      // The ticket is the credential; it is checked below, before the viewer gets a byte.
      config: { auth: 'anonymous' },
      schema: {
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        querystring: { type: 'object', properties: { ticket: { type: 'string' } } },
        // A refused ticket is told after the upgrade, in the close frame (policy violation).
        response: {
          101: { description: 'Switching Protocols: the VNC (RFB) stream over WebSocket' },
          ...anonymousErrorResponses,
        },
      },
      async preValidation(request) {
        if (!request.ws) return;
        admissions.set(request, await admit(request.params.id, request.query.ticket));
      },
    },
    (socket: WebSocket, request) => {
      const admission = admissions.get(request);
      admissions.delete(request);
      if (!admission || 'refused' in admission) {
        socket.close(CLOSE_POLICY_VIOLATION, admission?.refused ?? 'Invalid ticket');
        return;
      }
      const { display, release } = displays.acquire(admission.vm);
      const session = startRfbSession(
        {
          send: (data) => socket.send(data),
          close: (code, reason) => socket.close(code, reason),
        },
        display,
      );
      socket.on('message', (data: Buffer | ArrayBuffer | Buffer[]) =>
        session.receive(asBuffer(data)),
      );
      socket.on('close', () => {
        session.end();
        release();
      });
    },
  );
}
