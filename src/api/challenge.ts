import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { normalizeChallengeSpec, type ChallengeSpec } from '../domain/challenge';
import { nullable, NoContent } from './codecs';
import { INVALID_RESPONSE_MESSAGE, type ApiError, type HttpClient } from './http';

// GET and PUT challenge/{id} (spec §7 Workspaces; wire reference §1.1, §2.3): the workspace's
// challenge spec. The codec checks the DTO's outline; the domain's normalization then fills in
// the defaults of a spec written by an older or a reference server, so the form always gets a
// whole spec.

const Question = t.partial({
  text: nullable(t.string),
  hint: nullable(t.string),
  answer: nullable(t.string),
  example: nullable(t.string),
  weight: nullable(t.number),
  penalty: nullable(t.number),
  grader: nullable(t.union([t.string, t.number])),
  hidden: nullable(t.boolean),
  // Ours: decoy answers no gamespace is given (src/domain/variantSpec.ts).
  canaries: nullable(t.array(t.string)),
});

const Section = t.partial({
  name: nullable(t.string),
  preReqPrevSection: nullable(t.number),
  preReqTotal: nullable(t.number),
  text: nullable(t.string),
  questions: nullable(t.array(Question)),
});

const Variant = t.partial({
  text: nullable(t.string),
  sections: nullable(t.array(Section)),
  iso: nullable(t.partial({ file: nullable(t.string), targets: nullable(t.string) })),
});

/** ChallengeSpec; fields this SPA does not edit (scores, submissions) pass through unchecked. */
export const ChallengeSpecDto = t.partial({
  text: nullable(t.string),
  transforms: nullable(t.array(t.partial({ key: nullable(t.string), value: nullable(t.string) }))),
  variants: nullable(t.array(Variant)),
});
export type ChallengeSpecDto = t.TypeOf<typeof ChallengeSpecDto>;

const invalidResponse = (status: number): ApiError => ({
  status,
  message: INVALID_RESPONSE_MESSAGE,
});

/** GET challenge/{id}: the whole spec, defaults filled in. */
export const getChallenge =
  (http: HttpClient) =>
  (workspaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, ChallengeSpec> =>
    pipe(
      http.request(ChallengeSpecDto, {
        method: 'GET',
        path: `challenge/${encodeURIComponent(workspaceId)}`,
        signal,
      }),
      TE.chainEitherK((dto) =>
        E.tryCatch(
          () => normalizeChallengeSpec(dto),
          () => invalidResponse(200),
        ),
      ),
    );

/** PUT challenge/{id} with the spec (200 with no body). */
export const saveChallenge =
  (http: HttpClient) =>
  (
    { workspaceId, spec }: { workspaceId: string; spec: ChallengeSpec },
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, {
      method: 'PUT',
      path: `challenge/${encodeURIComponent(workspaceId)}`,
      body: spec,
      signal,
    });
