import type { FastifyInstance, FastifyRequest } from 'fastify';
import type {} from '@fastify/websocket';
import type { WebSocket } from 'ws';
import {
  isDriverError,
  tagOf,
  untagged,
  type ConsoleSession,
  type HypervisorDriver,
} from '../hypervisor';
import {
  CLOSE_PROTOCOL_ERROR,
  createByteReader,
  greetViewer,
  ViewerProtocolError,
} from '../hypervisor/rfb';
import type { Actor } from '../core/actor';
import type { ConsoleAccess, ConsoleRole } from '../core/vmViews';
import { createViewOnlyFilter } from './viewOnly';
import type { ConsoleSubject, ConsoleTicketStore } from './tickets';
import {
  createConsoleSlots,
  DEFAULT_CONSOLE_LIMITS,
  HANDSHAKE_TIMEOUT_REASON,
  type ConsoleLimits,
  type ConsoleSlots,
} from './limits';
import { anonymousErrorResponses } from '../http/schemas';
import type { ConsoleRecorder, ConsoleRecordings, RecordedSession } from './recordings';

// GET /api/console/vnc/:id?ticket=…: the VNC-over-WebSocket console of a machine whose console
// this server serves (capabilities.serverConsoles). The one-time ticket from GET
// /api/vm-console/{id} is the only credential, since a browser cannot put headers on a
// WebSocket; the route is anonymous to the HTTP auth hook for that reason. The ticket opens the
// console only as the subject it was handed to, who must still have the right to the machine. A
// refused viewer is closed with 1008 before any RFB byte, so noVNC reports a failed connection
// rather than a protocol error.
//
// An admitted viewer is greeted by this route itself (../hypervisor/rfb.ts, security None), under
// a deadline, and only then does the driver open the machine's console: a viewer that never
// answers holds a timer and a few bytes, not a screen buffer or a connection to the machine.
// Viewers over a cap (./limits.ts) are told why in the RFB handshake's failure reason, which
// noVNC reports as a security failure with that text, so the console page shows it.
//
// Ours: a view-only viewer (its ticket says so, or its right to the machine is only to watch it)
// is bridged through ./viewOnly.ts, which drops its keys, pointer and clipboard: the machine sees
// only its requests for the screen, and its ClientInit always asks to share the machine.

export const CLOSE_POLICY_VIOLATION = 1008;
/** The reason a viewer of a machine that is not running is refused with. */
export const MACHINE_NOT_RUNNING = 'The machine is not running.';
/** The reason a ticket that opens nothing is refused with. */
export const INVALID_TICKET = 'Invalid ticket';
/**
 * The most a viewer may send before its console is open: the handshake is 14 bytes, and nothing
 * else is due before the ServerInit.
 */
export const MAX_EARLY_BYTES = 4_096;
export const TOO_MUCH_EARLY = 'The viewer sent too much before the console opened.';

/** ClientInit with the shared flag set. */
const SHARED = Buffer.from([1]);

type Admission =
  | {
      machineId: string;
      machineName: string;
      subject: ConsoleSubject;
      role: ConsoleRole;
      viewOnly: boolean;
      recorded: RecordedSession | null;
    }
  | { refused: string };

/** A viewer's console, as told to `sessions`. */
export interface ConsoleSessionInfo {
  subject: ConsoleSubject;
  machineId: string;
  /** `{template}#{tag}`, as the driver names it. */
  machineName: string;
  /** How the viewer reaches the machine (VmService.consoleAccess). */
  role: ConsoleRole;
  /** The viewer only watches: its input is dropped. */
  viewOnly: boolean;
}

const asBuffer = (data: Buffer | ArrayBuffer | Buffer[]): Buffer =>
  Array.isArray(data)
    ? Buffer.concat(data)
    : Buffer.isBuffer(data)
      ? data
      : Buffer.from(new Uint8Array(data));

/**
 * Who is opening a console: the ticket's subject, the viewer the upgrade request names (the
 * console tab's `topomojo.mks` cookie), and whether they may open this machine's console now.
 */
export interface ConsoleViewers {
  viewerOf(request: FastifyRequest): Promise<Actor | null>;
  actorOf(subject: ConsoleSubject): Promise<Actor | null>;
  /** How the viewer may use this machine's console now; null: not at all. */
  mayOpen(viewer: Actor, machineId: string): Promise<ConsoleAccess | null>;
}

export interface ConsoleRouteOptions {
  driver: HypervisorDriver;
  tickets: ConsoleTicketStore;
  viewers: ConsoleViewers;
  limits?: ConsoleLimits;
  /** Told of each refused ticket, so that guessing tickets is throttled like other credentials. */
  onRefusedTicket?(request: FastifyRequest): Promise<void>;
  /** The open sockets, for metrics and tests. */
  slots?: ConsoleSlots;
  /**
   * Told when a viewer's console opens (the machine's console is bridged) and when that socket
   * closes: the gamespace's event log. Must return at once.
   */
  sessions?: {
    opened(session: ConsoleSessionInfo): void;
    closed(session: ConsoleSessionInfo): void;
  };
  /**
   * Console recordings (./recordings.ts): a session of a machine whose workspace records
   * consoles is recorded from the greeting on, every byte the viewer is sent.
   */
  recordings?: Pick<ConsoleRecordings, 'recordedGamespace' | 'recorder'>;
}

export async function consoleRoutes(
  app: FastifyInstance,
  options: ConsoleRouteOptions,
): Promise<void> {
  const { driver, tickets, viewers } = options;
  const limits = options.limits ?? DEFAULT_CONSOLE_LIMITS;
  const slots = options.slots ?? createConsoleSlots(limits);
  const admissions = new WeakMap<FastifyRequest, Admission>();

  const admit = async (
    request: FastifyRequest,
    machineId: string,
    ticket: string | undefined,
  ): Promise<Admission> => {
    const subject = ticket ? await tickets.take(ticket, machineId) : null;
    if (!subject) {
      await options.onRefusedTicket?.(request);
      return { refused: INVALID_TICKET };
    }
    // A viewer who says who they are must be the one the ticket was handed to; either way the
    // console opens as the ticket's subject, who must still have the right to this machine: a
    // ticket never opens a console for someone else.
    const viewer = await viewers.viewerOf(request);
    if (viewer && viewer.id !== subject.id) return { refused: INVALID_TICKET };
    const actor = viewer ?? (await viewers.actorOf(subject));
    const access = actor ? await viewers.mayOpen(actor, machineId) : null;
    if (!access) return { refused: INVALID_TICKET };
    const machine = await driver.load(machineId);
    const running = machine?.status === 'deployed' && machine.state === 'running';
    if (!running || machine.id !== machineId) return { refused: MACHINE_NOT_RUNNING };
    const gamespaceId = await options.recordings?.recordedGamespace(tagOf(machine.name));
    const recorded = gamespaceId
      ? {
          gamespaceId,
          machineId,
          machineName: untagged(machine.name),
          userId: subject.id,
          userName: subject.name,
        }
      : null;
    // The ticket's word, and the right checked now: a ticket never gives more than its holder has.
    const viewOnly = subject.viewOnly === true || !access.mayControl;
    return { machineId, machineName: machine.name, subject, role: access.role, viewOnly, recorded };
  };

  /**
   * Greets the viewer, then bridges its socket to the machine's console. `refusal`: the cap it
   * is over, told in the handshake instead of letting it in.
   */
  function serve(
    socket: WebSocket,
    viewer: ConsoleSessionInfo,
    refusal: string | undefined,
    release: () => void,
    recorder: ConsoleRecorder | null = null,
  ): void {
    const { machineId } = viewer;
    const handshake = createByteReader();
    const input = viewer.viewOnly ? createViewOnlyFilter() : null;
    let session: ConsoleSession | null = null;
    let gone = false;
    const close = (code: number, reason: string) => {
      if (gone) return;
      gone = true;
      socket.close(code, reason);
    };
    const deadline = setTimeout(
      () => close(CLOSE_POLICY_VIOLATION, HANDSHAKE_TIMEOUT_REASON),
      limits.handshakeTimeoutMs,
    );
    /** What of the viewer's bytes reaches the machine; a protocol error closes the viewer. */
    const toMachine = (bytes: Buffer): Buffer | null => {
      if (!input) return bytes;
      try {
        return input.push(bytes);
      } catch (error) {
        if (!(error instanceof ViewerProtocolError)) throw error;
        close(CLOSE_PROTOCOL_ERROR, error.message);
        return null;
      }
    };
    socket.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      const bytes = asBuffer(data);
      if (session) {
        const passed = toMachine(bytes);
        if (passed && passed.length > 0) session.receive(passed);
      } else if (handshake.length + bytes.length > MAX_EARLY_BYTES) {
        close(CLOSE_PROTOCOL_ERROR, TOO_MUCH_EARLY);
      } else handshake.push(bytes);
    });
    socket.on('close', () => {
      gone = true;
      clearTimeout(deadline);
      handshake.fail(new Error('the viewer went away'));
      if (session) options.sessions?.closed(viewer);
      session?.end();
      void recorder?.end();
      release();
    });

    const open = async () => {
      const send = recorder
        ? (bytes: Uint8Array) => {
            recorder.record(bytes);
            socket.send(bytes);
          }
        : (bytes: Uint8Array) => socket.send(bytes);
      if (!(await greetViewer((n) => handshake.read(n), send, refusal))) {
        close(CLOSE_POLICY_VIOLATION, refusal ?? INVALID_TICKET);
        return;
      }
      const clientInit = await handshake.read(1);
      clearTimeout(deadline);
      if (gone) return;
      if (!driver.openConsole) {
        close(CLOSE_POLICY_VIOLATION, 'This machine has no console here.');
        return;
      }
      try {
        const opened = await driver.openConsole(machineId, {
          send,
          close: (code, reason) => close(code, reason),
        });
        if (gone) {
          opened.end();
          return;
        }
        session = opened;
        options.sessions?.opened(viewer);
        recorder?.keep();
        // The ClientInit, and whatever the viewer sent while the console was opening. A viewer
        // who only watches shares the machine: its ClientInit never asks for it alone, which a
        // VNC server answers by dropping the machine's other viewers.
        const early = toMachine(handshake.drain());
        if (!early) return;
        opened.receive(Buffer.concat([input ? SHARED : clientInit, early]));
      } catch (error) {
        // The machine stopped or went between the ticket and now: refused like an off machine.
        if (!isDriverError(error)) app.log.warn({ err: error }, 'console failed to open');
        close(CLOSE_POLICY_VIOLATION, MACHINE_NOT_RUNNING);
      }
    };
    open().catch((error: unknown) => {
      if (error instanceof ViewerProtocolError) close(CLOSE_PROTOCOL_ERROR, error.message);
      // Otherwise the viewer went away mid-handshake: nothing is left to close.
    });
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
        socket.close(CLOSE_POLICY_VIOLATION, admission?.refused ?? INVALID_TICKET);
        return;
      }
      // The slot is taken with the socket, so that an upgrade that never completes holds none.
      const slot = slots.acquire({
        user: admission.subject.id,
        machine: admission.machineId,
        address: request.ip,
      });
      if ('refused' in slot) serve(socket, admission, slot.refused, () => {});
      else {
        const { recorded } = admission;
        const recorder =
          recorded && options.recordings ? options.recordings.recorder(recorded) : null;
        serve(socket, admission, undefined, () => slot.release(), recorder);
      }
    },
  );
}
