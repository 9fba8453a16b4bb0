import * as E from 'fp-ts/Either';
import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { nullable } from './codecs';
import { CSRF_HEADERS, FORBIDDEN_MESSAGE, type ApiError, type HttpClient } from './http';

// Disk images of the qemu images folder (admin, issue 31): the list with the templates naming
// each, delete, a stock template made from one, and the upload: started with its name and size,
// sent in chunks at the offset the server has reached (a chunk that fails is resent from what the
// server says it has), then completed, when the server checks and converts it.

export const DiskImage = t.type({
  name: t.string,
  size: t.number,
  virtualSize: nullable(t.number),
  templates: t.array(
    t.intersection([
      t.type({ id: t.string, name: t.string }),
      t.partial({ workspaceName: nullable(t.string) }),
    ]),
  ),
});
export type DiskImage = t.TypeOf<typeof DiskImage>;

export const DiskUpload = t.type({
  id: t.string,
  name: t.string,
  size: t.number,
  received: t.number,
});
export type DiskUpload = t.TypeOf<typeof DiskUpload>;

const TemplateCreated = t.type({ id: t.string, name: t.string });
export type TemplateCreated = t.TypeOf<typeof TemplateCreated>;

/** The bytes of each chunk: small enough to resend, large enough to keep the requests few. */
export const CHUNK_BYTES = 8 * 1024 * 1024;
/** A chunk that fails this many times in a row (no byte more on the server) ends the upload. */
export const CHUNK_ATTEMPTS = 4;

/** GET admin/diskimages. */
export const listDiskImages =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, DiskImage[]> =>
    http.request(t.array(DiskImage), { method: 'GET', path: 'admin/diskimages', signal });

/** DELETE admin/diskimage/{name}: refused while a template names it. */
export const deleteDiskImage =
  (http: HttpClient) =>
  (name: string, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(t.unknown, {
      method: 'DELETE',
      path: `admin/diskimage/${encodeURIComponent(name)}`,
      signal,
    });

/**
 * The detail of a stock template whose one disk is the image: a small machine (1 CPU, 1 GB,
 * one NIC on `lan`) that an administrator adjusts in the template's form.
 */
export const detailForImage = (image: Pick<DiskImage, 'name' | 'virtualSize'>): string =>
  JSON.stringify({
    Cpu: '1x1',
    Ram: 1,
    Guest: 'otherLinux64Guest',
    Adapters: 1,
    Eth: [{ Net: 'lan', Type: 'virtio' }],
    Disks: [
      {
        Path: image.name,
        Source: '',
        Controller: 'virtio',
        Size: Math.max(1, Math.ceil((image.virtualSize ?? 0) / 1024 ** 3)),
      },
    ],
  });

/** POST template-detail: a new stock template named after the image, its disk the image. */
export const createTemplateFromImage =
  (http: HttpClient) =>
  (
    image: Pick<DiskImage, 'name' | 'virtualSize'>,
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, TemplateCreated> =>
    http.request(TemplateCreated, {
      method: 'POST',
      path: 'template-detail',
      body: {
        name: image.name.replace(/\.[^.]+$/, ''),
        networks: 'lan',
        detail: detailForImage(image),
      },
      signal,
    });

/** Sends bytes of an upload from `offset`; answers the upload as the server has it then. */
export type ChunkSender = (
  id: string,
  offset: number,
  bytes: Blob,
  signal: AbortSignal,
) => Promise<E.Either<ApiError, DiskUpload>>;

/**
 * PUT admin/diskimage/{id}/chunk?offset=N with the bytes as application/octet-stream, through
 * fetch itself: the HTTP client sends JSON, text and forms only.
 */
export function createChunkSender(options: {
  baseUrl: string;
  authorization: () => string | undefined;
  fetch?: typeof fetch;
}): ChunkSender {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  return async (id, offset, bytes, signal) => {
    const headers: Record<string, string> = {
      ...CSRF_HEADERS,
      Accept: 'application/json',
      'Content-Type': 'application/octet-stream',
    };
    const authorization = options.authorization();
    if (authorization) headers.Authorization = authorization;
    try {
      const response = await doFetch(
        `${base}/admin/diskimage/${encodeURIComponent(id)}/chunk?offset=${offset}`,
        { method: 'PUT', headers, body: bytes, signal },
      );
      const text = await response.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      if (!response.ok) {
        const message = (body as { message?: unknown } | undefined)?.message;
        return E.left({
          status: response.status,
          message:
            typeof message === 'string' && message
              ? message
              : response.status === 403
                ? FORBIDDEN_MESSAGE
                : `HTTP ${response.status}`,
        });
      }
      return DiskUpload.is(body)
        ? E.right(body)
        : E.left({ status: response.status, message: 'InvalidResponse' });
    } catch (error) {
      return E.left({ status: 0, message: error instanceof Error ? error.message : String(error) });
    }
  };
}

export type DiskImageUploader = (
  file: File,
  onProgress: (percent: number) => void,
  signal: AbortSignal,
) => TE.TaskEither<ApiError, DiskImage>;

/**
 * Where an upload's id is kept by file (name, size, last change), so that choosing the same file
 * again, after a failure or in a reloaded page, resumes the upload instead of starting over.
 */
export interface UploadMemory {
  get(key: string): string | null;
  set(key: string, id: string): void;
  remove(key: string): void;
}

export const uploadMemoryKey = (file: File): string =>
  `topoplay.diskImageUpload:${file.name}:${file.size}:${file.lastModified}`;

/**
 * The whole upload of one file: started (or resumed, when `memory` has an upload of the same file
 * that the server still has), chunks from the offset the server has (a failed chunk is retried
 * from there, CHUNK_ATTEMPTS times without progress at most), complete. Progress is the share of
 * bytes the server has, at most 99 until the server has checked and converted it.
 */
export function createDiskImageUploader(
  http: HttpClient,
  sendChunk: ChunkSender,
  options: { chunkBytes?: number; memory?: UploadMemory } = {},
): DiskImageUploader {
  const { chunkBytes = CHUNK_BYTES, memory } = options;
  const statusOf = (id: string, signal: AbortSignal) =>
    http.request(DiskUpload, {
      method: 'GET',
      path: `admin/diskimage/${encodeURIComponent(id)}`,
      signal,
    })();

  async function resumeOrStart(file: File, signal: AbortSignal) {
    const key = uploadMemoryKey(file);
    const remembered = memory?.get(key);
    if (remembered) {
      const status = await statusOf(remembered, signal);
      if (E.isRight(status) && status.right.size === file.size) return status;
      memory?.remove(key);
    }
    const started = await http.request(DiskUpload, {
      method: 'POST',
      path: 'admin/diskimage',
      body: { name: file.name, size: file.size },
      signal,
    })();
    if (E.isRight(started)) memory?.set(key, started.right.id);
    return started;
  }

  return (file, onProgress, signal) => async () => {
    const key = uploadMemoryKey(file);
    const started = await resumeOrStart(file, signal);
    if (E.isLeft(started)) return started;
    const { id } = started.right;
    let received = started.right.received;
    let failures = 0;
    const percent = () => Math.min(99, Math.floor((received * 100) / file.size));
    onProgress(percent());
    while (received < file.size) {
      const sent = await sendChunk(
        id,
        received,
        file.slice(received, received + chunkBytes),
        signal,
      );
      if (signal.aborted) {
        // Given up: the server drops what it has rather than keep it for a resume.
        memory?.remove(key);
        void http.request(t.unknown, {
          method: 'DELETE',
          path: `admin/diskimage/${encodeURIComponent(id)}/upload`,
          signal: new AbortController().signal,
        })();
        return E.left({ status: 0, message: 'Aborted' });
      }
      if (E.isRight(sent)) {
        received = sent.right.received;
        failures = 0;
        onProgress(percent());
        continue;
      }
      // What the server has is where the next chunk starts, whatever went wrong.
      const status = await statusOf(id, signal);
      if (E.isLeft(status)) return sent;
      const progressed = status.right.received > received;
      received = status.right.received;
      failures = progressed ? 0 : failures + 1;
      // Kept in `memory`: choosing the file again goes on from here.
      if (failures >= CHUNK_ATTEMPTS) return sent;
    }
    // Refused or not, the server is done with the upload.
    const completed = await http.request(DiskImage, {
      method: 'POST',
      path: `admin/diskimage/${encodeURIComponent(id)}/complete`,
      signal,
    })();
    memory?.remove(key);
    return completed;
  };
}
