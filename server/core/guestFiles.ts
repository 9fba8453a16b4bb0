import type { Readable } from 'node:stream';
import {
  byteSize,
  guestFileName,
  MAX_GUEST_FILE_BYTES,
  MAX_GUEST_FILE_LABEL,
} from '../../src/domain/guestFiles';
import { tagOf, untagged, type HypervisorDriver } from '../hypervisor';
import type { Actor } from './actor';
import { DomainError, forbidden, notFound } from './errors';
import type { GameEventLog } from './gameEvents';

// Files a player puts into a running machine from its console (POST vm/{id}/files): whoever may
// open the machine's console may put a file into it (its gamespace's players, observers of its
// audience, admins; VmService.mayOpenConsole), checked before the file is read. The file is read
// up to the limit, then handed to the driver whole: nothing reaches the machine of a file
// refused. Each file put into a gamespace's machine is recorded as a `file.put` game event.

/** Answered 413 with this message: the request's file is over the limit. */
export class GuestFileTooLarge extends Error {
  constructor() {
    super(`The file is larger than ${MAX_GUEST_FILE_LABEL}, the most a machine takes this way.`);
    this.name = 'GuestFileTooLarge';
  }
}

/** What the console page is told about putting files into a machine. */
export interface GuestFileAccess {
  /** Whether the machine takes files now. */
  available: boolean;
  /** How they reach it: the driver's `files` capability; null when they cannot. */
  how: 'agent' | 'simulated' | null;
  /** The largest file, in bytes. */
  maxBytes: number;
  /** Why not, when not available. */
  reason: string | null;
}

/** A file put into a machine. */
export interface GuestFilePut {
  name: string;
  /** Where it is inside the machine. */
  path: string;
  size: number;
  sha256: string;
}

export interface GuestFileServiceOptions {
  driver: HypervisorDriver;
  vms: {
    mayOpenConsole(actor: Actor, id: string): Promise<boolean>;
    /** Observers watch a machine: they put no file into it. */
    mayControlConsole(actor: Actor, id: string): Promise<boolean>;
  };
  gamespaces: { find(id: string): Promise<{ id: string } | undefined> };
  /** Where `file.put` events go; none: not recorded. */
  events?: GameEventLog;
}

export function createGuestFileService(options: GuestFileServiceOptions) {
  const { driver, vms, gamespaces, events } = options;
  const how = driver.capabilities.files ?? null;

  async function authorized(actor: Actor, id: string) {
    if (!(await vms.mayOpenConsole(actor, id))) throw forbidden();
    const machine = await driver.load(id);
    if (!machine) throw notFound();
    return machine;
  }

  /** Reads the stream to its end; rejects with GuestFileTooLarge once it goes over the limit. */
  async function readLimited(file: Readable): Promise<Buffer> {
    const pieces: Buffer[] = [];
    let size = 0;
    for await (const chunk of file) {
      const piece = chunk as Buffer;
      size += piece.length;
      if (size > MAX_GUEST_FILE_BYTES) {
        file.destroy();
        throw new GuestFileTooLarge();
      }
      pieces.push(piece);
    }
    return Buffer.concat(pieces);
  }

  return {
    /** GET vm/{id}/files: whether the machine takes files now, and how. */
    async access(actor: Actor, id: string): Promise<GuestFileAccess> {
      const machine = await authorized(actor, id);
      const reason = !how
        ? 'Files cannot be put into machines of this hypervisor.'
        : !(await vms.mayControlConsole(actor, id))
          ? 'You are watching this machine: files cannot be put into it.'
          : machine.state !== 'running'
            ? 'The machine is not running.'
            : null;
      return { available: reason === null, how, maxBytes: MAX_GUEST_FILE_BYTES, reason };
    },

    /** The name a file gets inside the machine; refused (400) before anything is read. */
    nameOf(filename: string): string {
      const name = guestFileName(filename);
      if (!name) {
        throw new DomainError(
          'InvalidOperation',
          'The file name is not one a machine takes: it names a folder, starts with a dot or holds control characters.',
        );
      }
      return name;
    },

    /** Checks that the actor may put files into the machine, before its file is read. */
    async authorize(actor: Actor, id: string): Promise<void> {
      const machine = await authorized(actor, id);
      if (!(await vms.mayControlConsole(actor, id))) throw forbidden();
      if (!how || !driver.putFile) {
        throw new DomainError(
          'InvalidOperation',
          'Files cannot be put into machines of this hypervisor.',
        );
      }
      if (machine.state !== 'running') {
        throw new DomainError('InvalidOperation', 'The machine is not running.');
      }
    },

    /** POST vm/{id}/files: the file, read to the limit, into the machine. */
    async put(actor: Actor, id: string, name: string, file: Readable): Promise<GuestFilePut> {
      const machine = await authorized(actor, id);
      const bytes = await readLimited(file);
      if (!driver.putFile) throw new DomainError('InvalidOperation');
      const { path, sha256 } = await driver.putFile(machine.id, name, bytes);
      const tag = tagOf(machine.name);
      if (events && (await gamespaces.find(tag))) {
        await events.record({
          gamespaceId: tag,
          kind: 'file.put',
          actorId: actor.id,
          actorName: actor.name,
          machineId: machine.id,
          machineName: untagged(machine.name),
          detail: `${name} (${byteSize(bytes.length)})`,
        });
      }
      return { name, path, size: bytes.length, sha256 };
    },
  };
}

export type GuestFileService = ReturnType<typeof createGuestFileService>;
