import * as E from 'fp-ts/Either';
import { fromCallback } from 'xstate';
import { fromTaskEither } from '../api/actor';
import { getGuestFileAccess, type GuestFilePutter } from '../api/guestFiles';
import type { HttpClient } from '../api/http';
import { guestFilesMachine, type GuestFilesEvent } from '../machines/guestFilesMachine';

/** Files into the machine from its console: the machine's answer, then each file with progress. */
export const guestFilesLogic = (http: HttpClient, putFile: GuestFilePutter) =>
  guestFilesMachine.provide({
    actors: {
      loadAccess: fromTaskEither(({ vmId }: { vmId: string }, signal) =>
        getGuestFileAccess(http)(vmId, signal),
      ),
      sendFile: fromCallback<GuestFilesEvent, { vmId: string; file: File }>(
        ({ input, sendBack }) => {
          const controller = new AbortController();
          void putFile(
            input.vmId,
            input.file,
            (percent) => sendBack({ type: 'file.progressed', percent }),
            controller.signal,
          )().then((result) => {
            if (controller.signal.aborted) return;
            sendBack(
              E.isRight(result)
                ? { type: 'file.put', put: result.right }
                : { type: 'file.failed', error: result.left },
            );
          });
          return () => controller.abort();
        },
      ),
    },
  });
