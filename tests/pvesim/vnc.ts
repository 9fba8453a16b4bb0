import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer, type RawData } from 'ws';
import { vncAuthResponse } from '../../server/hypervisor/proxmox/des';
import { createByteQueue } from '../../server/hypervisor/sim/console/byteQueue';
import {
  createMachineDisplay,
  type MachineDisplay,
} from '../../server/hypervisor/sim/console/display';
import {
  CLOSE_NORMAL,
  CLOSE_PROTOCOL_ERROR,
  MACHINE_OFF_REASON,
  startRfbSession,
  type RfbSession,
  type RfbTransport,
} from '../../server/hypervisor/sim/console/rfb';
import { failure, flagParam, intParam, PveHttpError, textParam } from './errors';
import type { TaskHandle } from './tasks';
import { nodeOf, vmidOf, type Call, type Routes, type SimContext } from './types';

// VM consoles in the PVE API simulator. As on PVE, POST .../vncproxy (websocket=1) opens a VNC
// proxy for a running VM on a port 59xx and returns a one-time ticket; within 10 s a WebSocket to
// GET .../vncwebsocket?port=&vncticket= (same credentials) reaches it, and the VM's VNC server
// then speaks RFB 3.8 with VNC authentication only (security type 2), the password being the
// ticket (or the generated password). Once authenticated, the viewer is handed to the drawn
// console of a simulated machine (server/hypervisor/sim/console), as if QEMU's screen.

/**
 * What an authenticated viewer of a VM is handed to, from its ClientInit on: by default the
 * drawn console of a simulated machine; a benchmark may serve a screen it scripts instead.
 */
export type VncScreen = (transport: RfbTransport, vm: { vmid: number; name: string }) => RfbSession;

/** How long a vncproxy ticket waits for its connection (PVE's proxy listens 10 s). */
export const VNC_TICKET_MS = 10_000;

const FIRST_PORT = 5900;
const SECURITY_VNC_AUTH = 2;
const CHALLENGE_BYTES = 16;
const AUTH_FAILED = 'Authentication failed';

interface Ticket {
  /** Who asked for it: PVE accepts a ticket only from the same user. */
  user: string;
  vmid: number;
  node: string;
  port: number;
  password: string;
  task: TaskHandle;
  cancelExpiry: () => void;
}

export interface VncProxies {
  routes: Routes;
  /** A checked and authenticated vncwebsocket upgrade; throws PveHttpError to refuse it. */
  upgrade(call: Call, request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** The VM stopped or was destroyed: its screen says so and its consoles close. */
  vmStopped(vmid: number, destroyed: boolean): void;
  close(): void;
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
};

/** SecurityResult failed, with the reason that RFB 3.8 (only) carries. */
const securityFailure = (minor: number, reason: string) =>
  minor >= 8
    ? Buffer.concat([
        u32(1),
        u32(Buffer.byteLength(reason, 'latin1')),
        Buffer.from(reason, 'latin1'),
      ])
    : u32(1);

const toBuffer = (data: RawData): Buffer =>
  Buffer.isBuffer(data)
    ? data
    : Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.from(new Uint8Array(data));

/** A printable password for generate-password=1, as PVE's ('!' .. '~'). */
function printablePassword(): string {
  return [...randomBytes(8)].map((b) => String.fromCharCode(33 + (b % 94))).join('');
}

export function createVncProxies(ctx: SimContext, cert: string, screen?: VncScreen): VncProxies {
  const tickets = new Map<string, Ticket>();
  const portsInUse = new Set<number>();
  const displays = new Map<number, MachineDisplay>();
  const sockets = new Map<number, Set<WebSocket>>();
  const wss = new WebSocketServer({ noServer: true });

  const freePort = () => {
    let port = FIRST_PORT;
    while (portsInUse.has(port)) port++;
    return port;
  };

  const displayFor = (vmid: number, name: string): MachineDisplay => {
    const existing = displays.get(vmid);
    if (existing?.isRunning()) return existing;
    const display = createMachineDisplay(name);
    displays.set(vmid, display);
    return display;
  };

  /** RFB up to the end of VNC authentication, then the simulated machine's session. */
  const serve = (ws: WebSocket, vmid: number, name: string, ticket: Ticket) => {
    const pending = createByteQueue();
    const challenge = randomBytes(CHALLENGE_BYTES);
    let phase: 'version' | 'security' | 'response' | 'done' = 'version';
    let minor = 8;
    let session: RfbSession | null = null;
    const send = (data: Buffer) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(data);
    };
    const refuse = (code: number, reason: string, result?: Buffer) => {
      phase = 'done';
      if (result) send(result);
      ws.close(code, reason);
    };

    const handOver = () => {
      phase = 'done';
      send(u32(0));
      const transport = { send, close: (code: number, reason: string) => ws.close(code, reason) };
      session = screen
        ? screen(transport, { vmid, name })
        : startRfbSession(transport, displayFor(vmid, name));
      if (pending.length > 0) session.receive(pending.take(pending.length));
    };

    const advance = () => {
      for (;;) {
        if (phase === 'version') {
          if (pending.length < 12) return;
          const match = /^RFB (\d{3})\.(\d{3})\n$/.exec(pending.take(12).toString('latin1'));
          if (!match) return refuse(CLOSE_PROTOCOL_ERROR, 'not an RFB client');
          minor = Number(match[1]) > 3 ? 8 : Number(match[2]);
          if (minor < 7) {
            // RFB 3.3: the server names the type, then challenges at once.
            send(Buffer.concat([u32(SECURITY_VNC_AUTH), challenge]));
            phase = 'response';
          } else {
            send(Buffer.from([1, SECURITY_VNC_AUTH]));
            phase = 'security';
          }
        } else if (phase === 'security') {
          if (pending.length < 1) return;
          if (pending.take(1).readUInt8(0) !== SECURITY_VNC_AUTH) {
            const reason = 'Unsupported security type';
            return refuse(CLOSE_PROTOCOL_ERROR, reason, securityFailure(minor, reason));
          }
          send(challenge);
          phase = 'response';
        } else if (phase === 'response') {
          if (pending.length < CHALLENGE_BYTES) return;
          const answer = pending.take(CHALLENGE_BYTES);
          const expected = Buffer.from(vncAuthResponse(challenge, ticket.password));
          if (!timingSafeEqual(answer, expected)) {
            return refuse(CLOSE_NORMAL, AUTH_FAILED, securityFailure(minor, AUTH_FAILED));
          }
          return handOver();
        } else {
          return;
        }
      }
    };

    const open = sockets.get(vmid) ?? new Set<WebSocket>();
    open.add(ws);
    sockets.set(vmid, open);
    ws.on('message', (data) => {
      const bytes = toBuffer(data);
      if (session) return session.receive(bytes);
      pending.push(bytes);
      advance();
    });
    ws.on('close', () => {
      session?.end();
      open.delete(ws);
      portsInUse.delete(ticket.port);
      ticket.task.end();
    });
    send(Buffer.from('RFB 003.008\n', 'latin1'));
  };

  const routes: Routes = {
    'POST /nodes/{node}/qemu/{vmid}/vncproxy': (call) => {
      const node = nodeOf(call);
      const vmid = vmidOf(call);
      const vm = ctx.cluster.vmOn(node, vmid);
      if (!vm.running) throw failure(`VM ${vmid} not running`);
      const generated = flagParam(call.params, 'generate-password') === true;
      const port = freePort();
      portsInUse.add(port);
      const ticketText = `PVEVNC:${Math.floor(Date.now() / 1000)
        .toString(16)
        .toUpperCase()
        .padStart(8, '0')}::${randomBytes(32).toString('base64')}`;
      const password = generated ? printablePassword() : ticketText;
      const task = ctx.tasks.start({
        node,
        type: 'vncproxy',
        id: String(vmid),
        user: call.session.user,
        durationMs: null,
        begin: (log) => log(`simulated VNC proxy for VM ${vmid} listening on port ${port}`),
      });
      const cancelExpiry = ctx.timers.after(VNC_TICKET_MS, () => {
        if (!tickets.delete(ticketText)) return;
        portsInUse.delete(port);
        task.end('connection timed out');
      });
      tickets.set(ticketText, {
        user: call.session.user,
        vmid,
        node,
        port,
        password,
        task,
        cancelExpiry,
      });
      return {
        port: String(port),
        ticket: ticketText,
        cert,
        upid: task.upid,
        user: call.session.user,
        ...(generated ? { password } : {}),
      };
    },
  };

  return {
    routes,
    upgrade(call, request, socket, head) {
      const node = nodeOf(call);
      const vmid = vmidOf(call);
      const vm = ctx.cluster.vmOn(node, vmid);
      const ticketText = textParam(call.params, 'vncticket') ?? '';
      const ticket = tickets.get(ticketText);
      if (
        !ticket ||
        ticket.vmid !== vmid ||
        ticket.node !== node ||
        ticket.user !== call.session.user
      ) {
        throw new PveHttpError(401, 'permission denied - invalid vnc ticket');
      }
      if (ticket.port !== intParam(call.params, 'port')) {
        throw failure(`no VNC proxy for VM ${vmid} on port ${intParam(call.params, 'port')}`);
      }
      if (!vm.running) throw failure(`VM ${vmid} not running`);
      // One connection per ticket.
      tickets.delete(ticketText);
      ticket.cancelExpiry();
      const name = vm.config.name ?? `VM ${vmid}`;
      wss.handleUpgrade(request, socket, head, (ws) => serve(ws, vmid, name, ticket));
    },
    vmStopped(vmid, destroyed) {
      displays
        .get(vmid)
        ?.powerOff(
          destroyed ? 'deleted' : 'stopped',
          destroyed ? '[machine deleted]' : '[machine stopped]',
        );
      displays.delete(vmid);
      // Viewers past the handshake were closed by their session; the rest close here.
      for (const ws of sockets.get(vmid) ?? []) ws.close(CLOSE_NORMAL, MACHINE_OFF_REASON);
    },
    close() {
      for (const ticket of tickets.values()) ticket.cancelExpiry();
      tickets.clear();
      for (const open of sockets.values()) for (const ws of open) ws.terminate();
      sockets.clear();
      wss.close();
    },
  };
}
