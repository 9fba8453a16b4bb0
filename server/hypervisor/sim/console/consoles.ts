import { every, type Clock } from '../../../clock';
import {
  DriverError,
  untagged,
  type ConsoleSession,
  type ConsoleViewer,
  type DriverEvent,
  type GuestSetting,
  type Machine,
} from '../../types';
import { createMachineDisplay, type MachineDisplay } from './display';
import { machineFiles } from './files';
import { MACHINE_OFF_REASON, startRfbSession } from './rfb';

// The consoles of simulated machines: one drawn display per machine, shared by its viewers, each
// viewer with an RFB session of its own. A display follows its machine (through the driver's
// events, and by looking now and then) and draws the stop or the delete, after which its viewers
// close. server/console bridges a viewer's WebSocket to a session.

/** How often a machine with open consoles is checked for having stopped or gone. */
export const MACHINE_CHECK_MS = 2_000;

/** What the consoles ask of the driver they belong to. */
export interface SimConsoleSource {
  load(id: string): Promise<Machine | null>;
  /** The machine's guest settings, which its shell shows where a real guest reads them. */
  guestSettings?(id: string): Promise<GuestSetting[]>;
  subscribe(listener: (event: DriverEvent) => void): () => void;
  clock: Clock;
  log?: { warn(o: object, msg?: string): void };
}

interface Watched {
  display: MachineDisplay;
  /** The files its shell shows: files put into the machine are added to them. */
  files: Map<string, string>;
  viewers: number;
  stop(): void;
}

/** Why an open console ends, by what became of its machine; null while it runs. */
export function endOf(machine: Machine | null): { state: string; message: string } | null {
  if (!machine || machine.status !== 'deployed') {
    return { state: 'deleted', message: '[machine deleted]' };
  }
  if (machine.state === 'running') return null;
  const state = machine.state === 'suspended' ? 'suspended' : 'stopped';
  return { state, message: `[machine ${state}]` };
}

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export function createSimConsoles(source: SimConsoleSource) {
  const watched = new Map<string, Watched>();
  /** Files put into machines (putFile), by machine, then by path: kept while the driver runs. */
  const putFiles = new Map<string, Map<string, string>>();

  const watch = (machine: Machine, settings: readonly GuestSetting[]): Watched => {
    const name = untagged(machine.name);
    const files = new Map([...machineFiles(name, settings), ...(putFiles.get(machine.id) ?? [])]);
    const display = createMachineDisplay(name, files);
    const check = (current: Machine | null) => {
      const end = endOf(current);
      if (end) display.powerOff(end.state, end.message);
    };
    // The driver announces changes it makes on its own (tasks ending); a stop or delete through
    // the API is not announced, so the machine is also looked at now and then.
    const unsubscribe = source.subscribe((event) => {
      if (event.machine.id !== machine.id) return;
      check(event.type === 'deleted' ? null : event.machine);
    });
    const stopChecks = every(source.clock, MACHINE_CHECK_MS, () => {
      source
        .load(machine.id)
        .then(check, (err: unknown) => source.log?.warn({ err }, 'console machine check'));
    });
    return {
      display,
      files,
      viewers: 0,
      stop() {
        unsubscribe();
        stopChecks();
      },
    };
  };

  /** The machine's display and the viewer's release; the screen goes with its last viewer. */
  const acquire = (
    machine: Machine,
    settings: readonly GuestSetting[],
  ): { display: MachineDisplay; release(): void } => {
    const existing = watched.get(machine.id);
    // A machine that stopped and started again while its last viewers were closing gets a
    // fresh screen rather than the one that says it stopped (and reads its settings again, as a
    // real guest does when it boots).
    const entry = existing?.display.isRunning() ? existing : watch(machine, settings);
    if (existing && existing !== entry) existing.stop();
    watched.set(machine.id, entry);
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
        if (watched.get(machine.id) === entry) watched.delete(machine.id);
      },
    };
  };

  return {
    /** A viewer's session with a running machine's console (HypervisorDriver.openConsole). */
    async open(id: string, viewer: ConsoleViewer): Promise<ConsoleSession> {
      const machine = await source.load(id);
      if (!machine) throw new DriverError('not-found', 'no such machine');
      if (endOf(machine) || machine.id !== id) {
        throw new DriverError('invalid-state', MACHINE_OFF_REASON);
      }
      const settings = (await source.guestSettings?.(id)) ?? [];
      const { display, release } = acquire(machine, settings);
      const session = startRfbSession(viewer, display);
      return {
        receive: (bytes) => session.receive(asBuffer(bytes)),
        end() {
          session.end();
          release();
        },
      };
    },

    /**
     * What the machine's shell last copied (HypervisorDriver.readGuestClipboard): its screen lives
     * while its consoles are open, and so does what was copied on it.
     */
    copied(id: string): string {
      return watched.get(id)?.display.copied() ?? '';
    },

    /**
     * A file put into the machine, as text its shell can `cat` and `ls`, in open consoles at
     * once (HypervisorDriver.putFile: the driver has checked that the machine runs).
     */
    putFile(id: string, path: string, text: string): void {
      const files = putFiles.get(id) ?? new Map<string, string>();
      files.set(path, text);
      putFiles.set(id, files);
      watched.get(id)?.files.set(path, text);
    },

    /** Stops following every machine (the driver closes). */
    close(): void {
      for (const entry of watched.values()) entry.stop();
      watched.clear();
    },
  };
}

export type SimConsoles = ReturnType<typeof createSimConsoles>;
