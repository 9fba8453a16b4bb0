// The error catalogue (spec §8): what the person using the SPA reads for each error the server
// names, each HTTP status that comes without a name, and a network failure. The server answers
// TopoMojo's message names (`400 {"message":"ResourceNotFound"}`, wire reference §0); they stay
// on the wire for TopoMojo clients, and are turned into sentences only here.

/** The message names of the server's domain errors (server/core/errors.ts). */
export type DomainErrorName =
  | 'ResourceNotFound'
  | 'ResourceAlreadyExists'
  | 'MaximumTakeExceeded'
  | 'ActionForbidden'
  | 'ClientGamespaceLimitReached'
  | 'WorkspaceLimitReached'
  | 'TemplateLimitReached'
  | 'TemplateHasDescendents'
  | 'TemplateNotPublished'
  | 'ResourceIsLocked'
  | 'AttemptLimitReached'
  | 'GamespaceIsExpired'
  | 'InvalidInvitation'
  | 'QuestionSetLockedByPreReq'
  | 'UserDisabled'
  | 'UserResolutionFailed'
  | 'UserServiceAccountResolutionFailed'
  | 'InvalidOperation'
  | 'WorkspaceNotIsolated'
  | 'ActorLacksAudienceScope'
  | 'HypervisorCapacity'
  | 'GamespaceExtensionTooLong';

/**
 * Facts of our own that the server adds beside `message` (TopoMojo clients ignore them), so that
 * the sentence can say more than the name.
 */
export interface ErrorFacts {
  /** WorkspaceNotIsolated: how many gamespaces of the workspace are running. */
  gamespaces?: number;
  /** HypervisorCapacity: what is in use and what did not fit, as the hypervisor says it. */
  capacity?: string;
  /** GamespaceExtensionTooLong: how many minutes from now a game may run at most. */
  maxMinutes?: number;
}

/** The longest capacity sentence kept. */
const CAPACITY_MAX = 200;

/** The facts an error body (or an error made from one) carries. */
export function errorFactsOf(value: unknown): ErrorFacts {
  const body = value as
    { gamespaces?: unknown; capacity?: unknown; maxMinutes?: unknown } | null | undefined;
  const facts: ErrorFacts = {};
  const gamespaces = body?.gamespaces;
  if (typeof gamespaces === 'number' && Number.isInteger(gamespaces) && gamespaces >= 0) {
    facts.gamespaces = gamespaces;
  }
  const capacity = body?.capacity;
  if (typeof capacity === 'string' && capacity.trim()) {
    facts.capacity = capacity.trim().slice(0, CAPACITY_MAX);
  }
  const maxMinutes = body?.maxMinutes;
  if (typeof maxMinutes === 'number' && Number.isInteger(maxMinutes) && maxMinutes > 0) {
    facts.maxMinutes = maxMinutes;
  }
  return facts;
}

function noCapacity({ capacity }: ErrorFacts): string {
  const why = capacity ? ` (${capacity})` : '';
  return (
    `No room to start more machines right now${why}. ` +
    'Try again in a few minutes, or ask an administrator.'
  );
}

const NOT_FOUND = 'It was not found: it may have been deleted.';
const FORBIDDEN = 'You are not allowed to do this.';
const SIGNED_OUT = 'You are signed out: sign in again to go on.';
const TOO_LARGE = 'That is larger than the server accepts.';
const TOO_MANY = 'Too many requests in a short time: wait a minute and try again.';
const SERVER_FAILED =
  'Something went wrong on the server. Try again; if it keeps happening, tell an administrator.';
const SERVER_AWAY = 'The server cannot be reached right now: try again in a moment.';
const OFFLINE = 'The server could not be reached: check your connection and try again.';

/**
 * WorkspaceNotIsolated: saving writes the disks that running gamespaces share. They are ended
 * with the warning at the top of the Templates tab, the tab the machine's Save is on.
 */
function notIsolated({ gamespaces = 0 }: ErrorFacts): string {
  const running =
    gamespaces === 0
      ? 'gamespaces of this workspace are'
      : gamespaces === 1
        ? '1 gamespace of this workspace is'
        : `${gamespaces} gamespaces of this workspace are`;
  const them = gamespaces === 1 ? 'it' : 'them';
  return (
    `Cannot save this machine while ${running} running. ` +
    `Delete ${them} with Delete gamespaces at the top of the Templates tab first.`
  );
}

const DOMAIN_SENTENCES: Record<DomainErrorName, string | ((facts: ErrorFacts) => string)> = {
  ResourceNotFound: NOT_FOUND,
  ResourceAlreadyExists: 'It already exists, so it cannot be added again.',
  MaximumTakeExceeded: 'Too many results were asked for at once: ask for fewer.',
  ActionForbidden: FORBIDDEN,
  ClientGamespaceLimitReached:
    'You have as many running gamespaces as you are allowed: end one before launching another.',
  WorkspaceLimitReached:
    'You have as many workspaces as you are allowed: delete one before creating another.',
  TemplateLimitReached:
    'This workspace has as many templates as it is allowed: remove one before adding another.',
  TemplateHasDescendents: 'Other templates were made from this one, so it cannot be deleted.',
  TemplateNotPublished:
    'That template is not a published revision of the same template, so this one cannot be linked to it.',
  ResourceIsLocked: 'This is already being done: wait a moment and try again.',
  AttemptLimitReached: 'No attempts left for this question set.',
  GamespaceIsExpired: 'This game has ended.',
  // Spec §8's text for every failed invitation.
  InvalidInvitation: 'Invalid invitation code.',
  QuestionSetLockedByPreReq:
    'This question set is still locked: score more in the earlier sets first.',
  UserDisabled: 'Your account is disabled: ask an administrator to enable it.',
  UserResolutionFailed:
    'Your account could not be found or created: sign in again, or ask an administrator.',
  UserServiceAccountResolutionFailed:
    'This client has no service account on the server: ask an administrator to set one up.',
  InvalidOperation: 'This cannot be done.',
  WorkspaceNotIsolated: notIsolated,
  ActorLacksAudienceScope: 'You are not in the audience these workspaces are published to.',
  HypervisorCapacity: noCapacity,
  GamespaceExtensionTooLong: ({ maxMinutes }) =>
    `A game may run at most ${maxMinutes ? `${maxMinutes} minutes` : 'one game length'} from ` +
    'now: it was not extended. Try again when less time is left.',
};

/**
 * Other names the SPA meets: the server's framework answers (413, 415, 429, 500), the HTTP
 * client's own (src/api/http.ts), reasons a DomainError carries, and the browsers' words for a
 * request that got no answer at all.
 */
const OTHER_SENTENCES: Readonly<Record<string, string>> = {
  Forbidden: FORBIDDEN,
  Unauthorized: SIGNED_OUT,
  PayloadTooLarge: TOO_LARGE,
  UnsupportedMediaType: 'The server cannot read what was sent.',
  TooManyRequests: TOO_MANY,
  Error: SERVER_FAILED,
  InvalidResponse:
    'The server answered with something this page does not understand: reload the page and try again.',
  Aborted: 'It was cancelled.',
  LastAdministrator:
    'The last administrator who can sign in cannot be removed, disabled or lose the administrator role.',
  CannotDisableSelf: 'You cannot disable your own account: another administrator can.',
  // The profile page's password change (PUT /api/user/password, issue 29).
  WrongPassword: 'Your current password is not right: nothing was changed. Type it again.',
  NoLocalAccount:
    'You have no password on this site: you sign in through another identity provider.',
  // Chromium, Firefox, Safari and React Native's fetch, when no response arrived.
  'Failed to fetch': OFFLINE,
  'NetworkError when attempting to fetch resource.': OFFLINE,
  'Load failed': OFFLINE,
  'Network request failed': OFFLINE,
};

/** Statuses whose answers come without a name of their own (an empty 401, a proxy's 502). */
const STATUS_SENTENCES: Readonly<Record<number, string>> = {
  401: SIGNED_OUT,
  403: FORBIDDEN,
  404: NOT_FOUND,
  409: 'Someone else changed this at the same time: reload the page and try again.',
  413: TOO_LARGE,
  429: TOO_MANY,
  500: SERVER_FAILED,
  502: SERVER_AWAY,
  503: SERVER_AWAY,
  504: SERVER_AWAY,
};

const isDomainErrorName = (name: string): name is DomainErrorName =>
  Object.prototype.hasOwnProperty.call(DOMAIN_SENTENCES, name);

function sentenceOf(name: string, facts: ErrorFacts): string | undefined {
  if (isDomainErrorName(name)) {
    const sentence = DOMAIN_SENTENCES[name];
    return typeof sentence === 'function' ? sentence(facts) : sentence;
  }
  return Object.prototype.hasOwnProperty.call(OTHER_SENTENCES, name)
    ? OTHER_SENTENCES[name]
    : undefined;
}

/** A reason as the end of a sentence: 'The form has no file.' -> 'the form has no file.' */
function asClause(reason: string): string {
  const lowered = /^\p{Lu}\p{Ll}/u.test(reason)
    ? reason[0]!.toLowerCase() + reason.slice(1)
    : reason;
  return /[.!?]$/.test(lowered) ? lowered : `${lowered}.`;
}

/**
 * The sentence for an error message (a name, or a name and its reason as the server's
 * `DomainError` writes them: 'InvalidOperation The form has no file.'), or undefined when the
 * catalogue does not know it. `status` is the HTTP status it came with (0: no answer).
 */
export function describeError(
  message: string,
  status?: number,
  facts: ErrorFacts = {},
): string | undefined {
  const known = sentenceOf(message, facts);
  if (known !== undefined) return known;
  const space = message.indexOf(' ');
  const name = space < 0 ? '' : message.slice(0, space);
  if (isDomainErrorName(name)) {
    const reason = message.slice(space + 1).trim();
    const named = sentenceOf(reason, facts);
    if (named !== undefined) return named;
    const sentence = sentenceOf(name, facts) ?? '';
    return `${sentence.replace(/\.$/, '')}: ${asClause(reason)}`;
  }
  // A status text ('Not Found', 'HTTP 502'): the status says more than its words.
  if (status === undefined) return undefined;
  return STATUS_SENTENCES[status] ?? (status >= 500 ? SERVER_FAILED : undefined);
}

/** The HTTP status an error came with (0: no answer arrived), or undefined for any other error. */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status } = error as { status?: unknown };
  return typeof status === 'number' ? status : undefined;
}

/** 401: the server took no credential (signed out, or a cookie it no longer accepts). */
export const isSignedOut = (error: unknown): boolean => httpStatusOf(error) === 401;

/**
 * No answer at all, or a proxy's answer for a server that is away (restarting, or replaced behind
 * the load balancer): the same request may well succeed in a moment.
 */
export function isServerAway(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status === 0 || (status !== undefined && STATUS_SENTENCES[status] === SERVER_AWAY);
}
