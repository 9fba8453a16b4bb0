import type { Framebuffer } from './framebuffer';
import type { ConsoleInput } from './keys';
import { renderScreen } from './screen';
import { applyInputs, newTerminal, printLines, type MachineFiles, type Terminal } from './terminal';

// One simulated machine's display, shared by every console open on it (as a real machine has one
// screen however many viewers watch). It re-renders on each change and tells its viewers, who
// each send what changed since their last update.

export interface MachineDisplay {
  /** The machine name without its tag. */
  readonly name: string;
  /** The current screen; a new object after every change, never modified afterwards. */
  screen(): Framebuffer;
  isRunning(): boolean;
  /** What the machine's `topoplay-copy` was last given ('' before). */
  copied(): string;
  input(inputs: ConsoleInput[]): void;
  /** The machine went off: draws the state and message; viewers then close. */
  powerOff(state: string, message: string): void;
  /** Called after every change; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

export function createMachineDisplay(name: string, files?: MachineFiles): MachineDisplay {
  let terminal: Terminal = newTerminal(name, files);
  let state = 'running';
  let running = true;
  let current = renderScreen({ name, state, running, terminal });
  const listeners = new Set<() => void>();

  const changed = () => {
    current = renderScreen({ name, state, running, terminal });
    for (const listener of [...listeners]) listener();
  };

  return {
    name,
    screen: () => current,
    isRunning: () => running,
    copied: () => terminal.copied,
    input(inputs) {
      if (!running || inputs.length === 0) return;
      terminal = applyInputs(terminal, inputs);
      changed();
    },
    powerOff(nextState, message) {
      if (!running) return;
      running = false;
      state = nextState;
      terminal = printLines(terminal, [message]);
      changed();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
