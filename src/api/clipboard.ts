import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import * as t from 'io-ts';
import { NoContent } from './codecs';
import type { ApiError, HttpClient } from './http';

// The console's clipboard (ours): what the page can do with a machine's clipboard, the text last
// copied inside the machine, and the record that the page pasted into it. Called with the
// console cookie, as the console's other calls.

/**
 * What copy and paste can do for the machine (GET vm/{id}/clipboard), and how when copy works
 * (`via`: absent from older answers).
 */
export const VmClipboard = t.intersection([
  t.type({ copy: t.boolean, paste: t.boolean }),
  t.partial({ via: t.keyof({ agent: null, vdagent: null }) }),
]);
export type VmClipboard = t.TypeOf<typeof VmClipboard>;

/** The text last copied inside the machine (POST vm/{id}/clipboard/copy). */
export const CopiedText = t.type({ text: t.string });

const clipboardPath = (vmId: string) => `vm/${encodeURIComponent(vmId)}/clipboard`;

/** GET vm/{id}/clipboard. */
export const getVmClipboard =
  (http: HttpClient) =>
  (vmId: string, signal: AbortSignal): TE.TaskEither<ApiError, VmClipboard> =>
    http.request(VmClipboard, { method: 'GET', path: clipboardPath(vmId), signal });

/** POST vm/{id}/clipboard/copy: what was copied inside the machine ('' when nothing was). */
export const copyFromVm =
  (http: HttpClient) =>
  (vmId: string, signal: AbortSignal): TE.TaskEither<ApiError, string> =>
    pipe(
      http.request(CopiedText, { method: 'POST', path: `${clipboardPath(vmId)}/copy`, signal }),
      TE.map(({ text }) => text),
    );

/** POST vm/{id}/clipboard/paste: the page pasted into the machine (recorded, not the text). */
export const recordVmPaste =
  (http: HttpClient) =>
  (vmId: string, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, { method: 'POST', path: `${clipboardPath(vmId)}/paste`, signal });
