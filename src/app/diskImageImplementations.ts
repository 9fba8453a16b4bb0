import * as E from 'fp-ts/Either';
import { fromCallback } from 'xstate';
import { fromTaskEither } from '../api/actor';
import {
  createChunkSender,
  createDiskImageUploader,
  createTemplateFromImage,
  deleteDiskImage,
  listDiskImages,
  type DiskImage,
  type DiskImageUploader,
  type UploadMemory,
} from '../api/diskImages';
import { apiBaseUrl, type HttpClient } from '../api/http';
import type { AuthTokenActorRef } from '../machines/authTokenMachine';
import { selectUser } from '../machines/authTokenMachine.selectors';
import { diskImagesMachine } from '../machines/diskImagesMachine';
import { uploadMachine, type UploadEvent } from '../machines/uploadMachine';
import { uploadQueueMachine } from '../machines/uploadQueueMachine';
import { authorizationOf } from './auth';

// The Disk Images panel's effects (admin/templates): its list, delete and template calls, and
// the upload queue of the ISO uploads with a sender of resumable chunks in place of the form.

export interface DiskImageDependencies {
  http: HttpClient;
  apphost: string;
  auth: AuthTokenActorRef;
}

/** The upload queue, each upload sent in chunks by `upload`; leaving one aborts it. */
const chunkedUploadQueue = (upload: DiskImageUploader) =>
  uploadQueueMachine.provide({
    actors: {
      upload: uploadMachine.provide({
        actors: {
          sendFile: fromCallback<UploadEvent, { file: File; groupKey: string }>(
            ({ input, sendBack }) => {
              const controller = new AbortController();
              void upload(
                input.file,
                (percent) => sendBack({ type: 'upload.progressed', percent }),
                controller.signal,
              )().then((result) => {
                if (controller.signal.aborted) return;
                sendBack(
                  E.isRight(result)
                    ? { type: 'upload.succeeded' }
                    : { type: 'upload.failed', error: result.left },
                );
              });
              return () => controller.abort();
            },
          ),
        },
      }),
    },
  });

export function diskImagesLogic({ http, apphost, auth }: DiskImageDependencies) {
  const sendChunk = createChunkSender({
    baseUrl: apiBaseUrl(apphost),
    authorization: () => {
      const user = selectUser(auth.getSnapshot());
      return user ? authorizationOf(user) : undefined;
    },
  });
  // Uploads not yet completed, by file, in this browser: choosing the file again resumes one.
  const memory: UploadMemory = {
    get: (key) => window.localStorage.getItem(key),
    set: (key, id) => window.localStorage.setItem(key, id),
    remove: (key) => window.localStorage.removeItem(key),
  };
  return diskImagesMachine.provide({
    actors: {
      listImages: fromTaskEither((_: unknown, signal) => listDiskImages(http)(signal)),
      deleteImage: fromTaskEither(({ name }: { name: string }, signal) =>
        deleteDiskImage(http)(name, signal),
      ),
      createTemplate: fromTaskEither(({ image }: { image: DiskImage }, signal) =>
        createTemplateFromImage(http)(image, signal),
      ),
      uploads: chunkedUploadQueue(createDiskImageUploader(http, sendChunk, { memory })),
    },
  });
}
