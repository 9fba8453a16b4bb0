import type { FastifyInstance, FastifyRequest } from 'fastify';
import type {} from '@fastify/websocket';
import type { WebSocket } from 'ws';
import { isDriverError, type ConsoleSession, type HypervisorDriver } from '../hypervisor';
import type { Actor } from '../core/users';
import type { ConsoleTicketStore } from './tickets';
import { anonymousErrorResponses } from '../http/schemas';

// GET /api/console/vnc/:id?ticket=…: the VNC-over-WebSocket console of a machine whose console
// this server serves (capabilities.serverConsoles). The one-time ticket from GET
// /api/vm-console/{id} is the only credential, since a browser cannot put headers on a
// WebSocket; the route is anonymous to the HTTP auth hook for that reason. A refused viewer is
// closed with 1008 before any RFB byte, so noVNC reports a failed connection rather than a
// protocol error. Past the ticket, the route only carries bytes: the driver's console session
// speaks RFB.

export const CLOSE_POLICY_VIOLATION = 1008;
/** The reason a viewer of a machine that is not running is refused with. */
export const MACHINE_NOT_RUNNING = 'The machine is not running.';

type Admission = { machineId: string } | { refused: string };

const asBuffer = (data: Buffer | ArrayBuffer | Buffer[]): Buffer =>
  Array.isArray(data)
    ? Buffer.concat(data)
    : Buffer.isBuffer(data)
      ? data
      : Buffer.from(new Uint8Array(data));

/**
 * Who is opening a console, when the upgrade request says (the console tab's `topomojo.mks`
 * cookie), and whether that viewer may open this machine's console now.
 */
export interface ConsoleViewers {
  viewerOf(request: FastifyRequest): Promise<Actor | null>;
  mayOpen(viewer: Actor, machineId: string): Promise<boolean>;
}

export async function consoleRoutes(
  app: FastifyInstance,
  options: { driver: HypervisorDriver; tickets: ConsoleTicketStore; viewers?: ConsoleViewers },
): Promise<void> {
  const { driver, tickets, viewers } = options;
  const admissions = new WeakMap<FastifyRequest, Admission>();

  const admit = async (
    request: FastifyRequest,
    machineId: string,
    ticket: string | undefined,
  ): Promise<Admission> => {
    const redeemed = ticket ? await tickets.take(ticket, machineId) : null;
    if (!redeemed) return { refused: 'Invalid ticket' };
    // A viewer who says who they are must be the one the ticket was handed to, and still have
    // the right to this machine: a ticket never opens a console for someone else.
    const viewer = viewers ? await viewers.viewerOf(request) : null;
    if (viewer && redeemed.subject && viewer.id !== redeemed.subject) {
      return { refused: 'Invalid ticket' };
    }
    if (viewer && viewers && !(await viewers.mayOpen(viewer, machineId))) {
      return { refused: 'Invalid ticket' };
    }
    const machine = await driver.load(machineId);
    const running = machine?.status === 'deployed' && machine.state === 'running';
    if (!running || machine.id !== machineId) return { refused: MACHINE_NOT_RUNNING };
    return { machineId };
  };

  /** Bridges the socket to the machine's console; what the viewer sends early waits for it. */
  async function bridge(socket: WebSocket, machineId: string): Promise<void> {
    const early: Buffer[] = [];
    let session: ConsoleSession | null = null;
    let gone = false;
    socket.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      if (session) session.receive(asBuffer(data));
      else early.push(asBuffer(data));
    });
    socket.on('close', () => {
      gone = true;
      session?.end();
    });
    if (!driver.openConsole) {
      socket.close(CLOSE_POLICY_VIOLATION, 'This machine has no console here.');
      return;
    }
    try {
      const opened = await driver.openConsole(machineId, {
        send: (bytes) => socket.send(bytes),
        close: (code, reason) => socket.close(code, reason),
      });
      if (gone) {
        opened.end();
        return;
      }
      session = opened;
      for (const data of early.splice(0)) opened.receive(data);
    } catch (error) {
      // The machine stopped or went between the ticket and now: refused like an off machine.
      if (!isDriverError(error)) app.log.warn({ err: error }, 'console failed to open');
      socket.close(CLOSE_POLICY_VIOLATION, MACHINE_NOT_RUNNING);
    }
  }

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
        admissions.set(request, await admit(request, request.params.id, request.query.ticket));
      },
    },
    (socket: WebSocket, request) => {
      const admission = admissions.get(request);
      admissions.delete(request);
      if (!admission || 'refused' in admission) {
        socket.close(CLOSE_POLICY_VIOLATION, admission?.refused ?? 'Invalid ticket');
        return;
      }
      void bridge(socket, admission.machineId);
    },
  );
}
