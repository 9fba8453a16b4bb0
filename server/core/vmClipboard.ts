import { tagOf, untagged, type ClipboardVia, type HypervisorDriver } from '../hypervisor';
import type { Actor } from './actor';
import { DomainError, forbidden } from './errors';
import type { GameEventLog } from './gameEvents';

// The console's clipboard (the console page's Copy and Paste): paste into a machine is typed as
// keystrokes in the browser, which any machine with a keyboard takes; copy out reads what was
// copied inside the machine, which takes a guest agent that knows it (the driver says). A machine
// whose desktop runs spice-vdagent (`via: 'vdagent'`) shares its clipboard with the console
// itself, both ways; the console still records its copies and pastes here. Both are
// recorded on the machine's gamespace as game events: that they happened, never what was copied.

/** What the console can do with a machine's clipboard (GET /api/vm/{id}/clipboard). */
export interface VmClipboard {
  /** Text copied inside the machine (topoplay-copy) reaches the browser's clipboard. */
  copy: boolean;
  /** Text from the browser's clipboard is typed into the machine. */
  paste: boolean;
  /**
   * How, when copy works: `agent`, copy reads what topoplay-copy was given and paste is typed;
   * `vdagent`, the machine's desktop shares its clipboard with the console both ways (the VNC
   * extended clipboard). Left out when nothing copies out, as answers before it.
   */
  via?: ClipboardVia;
}

export type ClipboardDirection = 'copy' | 'paste';

/** Why a copy was refused: the machine has no agent that can copy out. */
export const NO_CLIPBOARD_AGENT = 'This machine has no clipboard agent: nothing can be copied out.';

export interface VmClipboardOptions {
  driver: HypervisorDriver;
  /** Whether the actor may use the machine's console (VmService.mayOpenConsole). */
  mayOpenConsole(actor: Actor, id: string): Promise<boolean>;
  /**
   * Whether the actor may put input into the machine (VmService.mayControlConsole): an observer
   * may read its clipboard, never paste into it.
   */
  mayControlConsole(actor: Actor, id: string): Promise<boolean>;
  /** Whether an isolation tag is a gamespace's: only gamespaces keep game events. */
  isGamespace(tag: string): Promise<boolean>;
  /** The gamespaces' event log; without it nothing is recorded. */
  events?: GameEventLog;
  log?: { warn(o: object, msg?: string): void };
}

export function createVmClipboard(options: VmClipboardOptions) {
  const { driver } = options;

  async function machineFor(actor: Actor, id: string) {
    if (!(await options.mayOpenConsole(actor, id))) throw forbidden();
    const machine = await driver.load(id);
    if (!machine) throw new DomainError('ResourceNotFound');
    return machine;
  }

  /** Records that the actor used the clipboard of the machine; never fails the use. */
  async function record(
    actor: Actor,
    machine: { id: string; name: string },
    direction: ClipboardDirection,
  ): Promise<void> {
    if (!options.events) return;
    const tag = tagOf(machine.name);
    try {
      if (!(await options.isGamespace(tag))) return;
      await options.events.record({
        gamespaceId: tag,
        kind: direction === 'copy' ? 'clipboard.copy' : 'clipboard.paste',
        actorId: actor.id,
        actorName: actor.name,
        machineId: machine.id,
        machineName: untagged(machine.name),
      });
    } catch (error) {
      options.log?.warn({ err: error, machine: machine.id }, 'clipboard event not recorded');
    }
  }

  return {
    /** GET /api/vm/{id}/clipboard. */
    async capabilities(actor: Actor, id: string): Promise<VmClipboard> {
      const machine = await machineFor(actor, id);
      const running = machine.status === 'deployed' && machine.state === 'running';
      const guest = running ? await driver.guestClipboard?.(machine.id) : undefined;
      const copy = guest?.copy ?? false;
      const paste = running && (await options.mayControlConsole(actor, id));
      return { copy, paste, ...(copy && guest?.via ? { via: guest.via } : {}) };
    },

    /** POST /api/vm/{id}/clipboard/copy: the text last copied inside the machine. */
    async copy(actor: Actor, id: string): Promise<{ text: string }> {
      const machine = await machineFor(actor, id);
      if (!driver.readGuestClipboard) throw new DomainError('InvalidOperation', NO_CLIPBOARD_AGENT);
      const text = await driver.readGuestClipboard(machine.id);
      await record(actor, machine, 'copy');
      return { text };
    },

    /** POST /api/vm/{id}/clipboard/paste: the console pasted into the machine (in the browser). */
    async pasted(actor: Actor, id: string): Promise<void> {
      const machine = await machineFor(actor, id);
      if (!(await options.mayControlConsole(actor, id))) throw forbidden();
      await record(actor, machine, 'paste');
    },
  };
}

export type VmClipboardService = ReturnType<typeof createVmClipboard>;
