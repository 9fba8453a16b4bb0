import { randomBytes, randomInt } from 'node:crypto';
import { parseChallengeText } from '../../../src/domain/challenge';
import { setQuestionWeights } from '../../../src/domain/graders';
import { gamespaceMinutesCap, launchMinutes } from '../../../src/domain/gameLength';
import {
  resolveTransforms,
  substitute,
  type Random,
  type TransformContext,
} from '../../../src/domain/transforms';

// The pure rules of launching a gamespace (wire reference §4.2): how long it lasts, which variant
// it plays, and the challenge copy it keeps (transforms resolved, weights as fractions of 1,
// `##key##` replaced everywhere).

/** Attempts per question set when the registration does not say (GamespaceRegistration). */
export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_POINTS = 100;
/** The per-player launch lock's lifetime: long enough for a deploy, short enough to recover. */
export const LAUNCH_LOCK_MS = 60_000;

/** Crypto randomness for transforms: players must not predict their flags. */
export const cryptoRandom: Random = {
  bytes: (n) => new Uint8Array(randomBytes(n)),
  int: (min, max) => (max <= min ? min : randomInt(min, max)),
};

/**
 * The longest a gamespace may last, in minutes: the actor's own cap, else the workspace's
 * duration, else the default.
 */
export const maxDuration = (actorMaxMinutes: number, workspaceMinutes: number): number =>
  gamespaceMinutesCap(actorMaxMinutes, workspaceMinutes).minutes;

/**
 * The expiration time (ms): the requested one, else now + the requested minutes (capped by the
 * maximum), and never more than the maximum from now.
 */
export function expirationOf(
  now: number,
  maxMinutes: number,
  requested: { maxMinutes: number; expirationTime: number },
): number {
  const minutes = launchMinutes(requested.maxMinutes, maxMinutes);
  let expiration = requested.expirationTime > 0 ? requested.expirationTime : now + minutes * 60_000;
  if (expiration - now > maxMinutes * 60_000) expiration = now + maxMinutes * 60_000;
  return expiration;
}

/** The 0-based variant: the requested 1-based one (clamped to the last), or a random one for 0. */
export function chooseVariant(requested: number, count: number, random: Random): number {
  if (count <= 0) return 0;
  if (requested > 0) return Math.min(requested, count) - 1;
  return random.int(0, count);
}

export interface ChallengeCopy {
  /** The gamespace's challenge JSON text. */
  text: string;
  variant: number;
}

/**
 * The gamespace's copy of the workspace challenge: transforms resolved (and kept resolved, so the
 * deploy substitutes the same values into guest settings), the chosen variant copied into
 * `challenge` with its weights made fractions of 1, the points and attempts of the registration,
 * then every `##key##` of the whole JSON text replaced.
 */
export function cloneChallenge(
  workspaceChallenge: string,
  options: {
    requestedVariant: number;
    maxPoints: number;
    maxAttempts: number;
    context: Omit<TransformContext, 'variant'>;
    random: Random;
  },
): ChallengeCopy {
  const spec = parseChallengeText(workspaceChallenge);
  const variant = chooseVariant(options.requestedVariant, spec.variants.length, options.random);
  const transforms = resolveTransforms(
    spec.transforms,
    { ...options.context, variant },
    options.random,
  );
  const chosen = spec.variants[variant];
  const copy = {
    ...spec,
    transforms,
    challenge: chosen ? setQuestionWeights(chosen) : null,
    maxPoints: options.maxPoints,
    maxAttempts: options.maxAttempts,
  };
  return { text: substitute(JSON.stringify(copy), jsonSafe(transforms)), variant };
}

/**
 * Values are substituted into JSON text, so they are escaped as JSON string content: a generated
 * value with a quote or backslash must not break the stored document.
 */
const jsonSafe = (transforms: ReturnType<typeof resolveTransforms>) =>
  transforms.map((t) => ({ key: t.key, value: JSON.stringify(t.value).slice(1, -1) }));
