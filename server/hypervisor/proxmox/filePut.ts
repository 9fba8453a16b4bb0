import { createHash } from 'node:crypto';
import type { Clock } from '../../clock';
import { DriverError, type PutFile } from '../types';
import { PveError, type PveClient } from './client';
import { readGuestFile } from './guestAgent';

// Files put into a running machine through PVE's QEMU guest agent: agent/file-write takes at
// most 61440 characters of content, and writes a whole file each call (PVE opens it with "w"), so
// a larger file goes as pieces of 45 KiB, written base64 (encode=0) beside the file and joined by
// agent/exec. The file is then read back (file-read, base64) and its SHA-256 compared: the agent
// runs as root, and files land in root's uploads folder (PVE's agent knows no login user).

/** Where files land inside the guest. */
export const PVE_UPLOADS = '/root/uploads';
/** Bytes of one piece: 61440 characters of base64. */
export const PVE_PIECE_BYTES = (61_440 / 4) * 3;
/** How long the guest's commands (mkdir, the join) may take. */
const EXEC_MS = 30_000;
const EXEC_POLL_MS = 100;

export interface PveFilePut {
  api: Pick<PveClient, 'get' | 'post'>;
  /** The VM's path in the API (machines.ts vmPath). */
  vm: string;
  name: string;
  bytes: Uint8Array;
  clock: Clock;
}

const shellWord = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** Runs a shell command in the guest and waits for it to end with status 0. */
async function run(put: PveFilePut, command: string): Promise<void> {
  const agent = `${put.vm}/agent`;
  const { pid } = await put.api.post<{ pid: number }>(`${agent}/exec`, {
    command: ['/bin/sh', '-c', command],
  });
  const deadline = put.clock.now() + EXEC_MS;
  for (;;) {
    const status = await put.api.get<{ exited: boolean | number; exitcode?: number }>(
      `${agent}/exec-status`,
      { pid },
    );
    if (status.exited) {
      if (status.exitcode) {
        throw new DriverError('unavailable', `the guest could not store ${put.name}`);
      }
      return;
    }
    if (put.clock.now() >= deadline) {
      throw new DriverError('unavailable', `the guest did not store ${put.name} in time`);
    }
    await new Promise<void>((resolve) => put.clock.setTimeout(() => resolve(), EXEC_POLL_MS));
  }
}

export async function putThroughPveAgent(put: PveFilePut): Promise<PutFile> {
  const { api, name, bytes } = put;
  const agent = `${put.vm}/agent`;
  try {
    await api.post(`${agent}/ping`);
  } catch (error) {
    if (error instanceof PveError && error.kind === 'not-found') throw error;
    throw new DriverError(
      'unavailable',
      "The machine's guest agent does not answer: its image has none, or it has not booted " +
        'yet. Files can be put into it once its agent answers, or given to it on an ISO.',
    );
  }
  const path = `${PVE_UPLOADS}/${name}`;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pieces: Buffer[] = [];
  for (let at = 0; at < buffer.length || pieces.length === 0; at += PVE_PIECE_BYTES) {
    pieces.push(buffer.subarray(at, at + PVE_PIECE_BYTES));
  }
  const partOf = (i: number) => `${PVE_UPLOADS}/.${name}.part${String(i).padStart(4, '0')}`;
  await run(put, `mkdir -p ${PVE_UPLOADS}`);
  const targets = pieces.length === 1 ? [path] : pieces.map((_, i) => partOf(i));
  try {
    for (const [i, piece] of pieces.entries()) {
      await api.post(`${agent}/file-write`, {
        file: targets[i],
        content: piece.toString('base64'),
        encode: 0,
      });
    }
    if (pieces.length > 1) {
      const parts = targets.map(shellWord).join(' ');
      await run(put, `cat ${parts} > ${shellWord(path)} && rm -f ${parts}`);
    }
  } catch (error) {
    if (pieces.length > 1) {
      await run(put, `rm -f ${targets.map(shellWord).join(' ')}`).catch(() => undefined);
    }
    throw error;
  }
  const read = await readGuestFile(api, put.vm, path);
  if (!read) throw new DriverError('unavailable', `${name} did not arrive in the machine`);
  const sha256 = createHash('sha256').update(read).digest('hex');
  if (sha256 !== createHash('sha256').update(buffer).digest('hex')) {
    throw new DriverError('unavailable', `${name} arrived damaged in the machine`);
  }
  return { path, sha256 };
}
