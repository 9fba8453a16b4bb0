import { PveError, type PveClient } from './client';

// Reading a file in a running guest through PVE's QEMU guest agent (agent/file-read), for every
// part of the driver that reads one: the settings file, a file put into the guest, the copied
// text. Always as base64 (`decode=0`, the agent's own form): the bytes arrive as the guest has
// them, and UTF-8 text is decoded here, rather than passed as text through PVE's JSON answer.

/** Whether PVE's error is the agent's: the guest has no such file. */
export const isMissingFile = (error: unknown): boolean =>
  error instanceof PveError &&
  error.kind === 'not-found' &&
  /no such file or directory/i.test(error.reason);

/**
 * The bytes of a file in the guest (at most `count` of them, when given), null when the guest has
 * no such file. Rejects (PveError) when the agent does not answer or the VM is gone.
 */
export async function readGuestFile(
  api: Pick<PveClient, 'get'>,
  /** The VM's path in the API (machines.ts vmPath). */
  vm: string,
  file: string,
  count?: number,
): Promise<Buffer | null> {
  try {
    const read = await api.get<{ content: string }>(`${vm}/agent/file-read`, {
      file,
      decode: 0,
      count,
    });
    return Buffer.from(read.content, 'base64');
  } catch (error) {
    if (isMissingFile(error)) return null;
    throw error;
  }
}
