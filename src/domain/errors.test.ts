import { describe, expect, it } from 'vitest';
import {
  describeError,
  errorFactsOf,
  isServerAway,
  isSignedOut,
  type DomainErrorName,
} from './errors';
import { errorMessage } from './text';

// Every name the server's DomainError may carry (server/core/errors.ts takes its type from here).
const DOMAIN_ERROR_NAMES: Record<DomainErrorName, true> = {
  ResourceNotFound: true,
  ResourceAlreadyExists: true,
  MaximumTakeExceeded: true,
  ActionForbidden: true,
  ClientGamespaceLimitReached: true,
  WorkspaceLimitReached: true,
  TemplateLimitReached: true,
  TemplateHasDescendents: true,
  TemplateNotPublished: true,
  ResourceIsLocked: true,
  AttemptLimitReached: true,
  GamespaceIsExpired: true,
  InvalidInvitation: true,
  QuestionSetLockedByPreReq: true,
  UserDisabled: true,
  UserResolutionFailed: true,
  UserServiceAccountResolutionFailed: true,
  InvalidOperation: true,
  WorkspaceNotIsolated: true,
  ActorLacksAudienceScope: true,
  HypervisorCapacity: true,
  GamespaceExtensionTooLong: true,
};

const isSentence = (text: string) => /^\p{Lu}.*[.!?]$/u.test(text) && /\s/.test(text);

describe('the error catalogue', () => {
  it.each(Object.keys(DOMAIN_ERROR_NAMES))('gives %s a sentence, not its name', (name) => {
    const sentence = describeError(name, 400);
    expect(sentence).toBeDefined();
    expect(isSentence(sentence ?? '')).toBe(true);
    expect(sentence).not.toContain(name);
  });

  it.each([
    ['ActionForbidden', 'You are not allowed to do this.'],
    ['ResourceNotFound', 'It was not found: it may have been deleted.'],
    ['AttemptLimitReached', 'No attempts left for this question set.'],
    [
      'QuestionSetLockedByPreReq',
      'This question set is still locked: score more in the earlier sets first.',
    ],
    ['GamespaceIsExpired', 'This game has ended.'],
    // Spec §8 gives this one word for word.
    ['InvalidInvitation', 'Invalid invitation code.'],
    ['TemplateHasDescendents', 'Other templates were made from this one, so it cannot be deleted.'],
  ])('says %s as "%s"', (name, sentence) => {
    expect(describeError(name, 400)).toBe(sentence);
  });

  it('says how far a game may be extended, and that it was not', () => {
    expect(describeError('GamespaceExtensionTooLong', 400, { maxMinutes: 60 })).toBe(
      'A game may run at most 60 minutes from now: it was not extended. ' +
        'Try again when less time is left.',
    );
    expect(errorFactsOf({ message: 'GamespaceExtensionTooLong', maxMinutes: 60 })).toEqual({
      maxMinutes: 60,
    });
  });

  it('says how many running gamespaces block a save, and where to end them', () => {
    expect(describeError('WorkspaceNotIsolated', 400, { gamespaces: 2 })).toBe(
      'Cannot save this machine while 2 gamespaces of this workspace are running. ' +
        'Delete them with Delete gamespaces at the top of the Templates tab first.',
    );
    expect(describeError('WorkspaceNotIsolated', 400, { gamespaces: 1 })).toBe(
      'Cannot save this machine while 1 gamespace of this workspace is running. ' +
        'Delete it with Delete gamespaces at the top of the Templates tab first.',
    );
    // A TopoMojo server sends the name alone.
    expect(describeError('WorkspaceNotIsolated', 400)).toBe(
      'Cannot save this machine while gamespaces of this workspace are running. ' +
        'Delete them with Delete gamespaces at the top of the Templates tab first.',
    );
  });

  it('says what is in use when the hypervisor has no room, and reads only a short text', () => {
    const facts = errorFactsOf({
      message: 'HypervisorCapacity',
      capacity: ' 6 of at most 6 machines are running; 1 more do not fit ',
    });
    expect(describeError('HypervisorCapacity', 400, facts)).toBe(
      'No room to start more machines right now (6 of at most 6 machines are running; 1 more do ' +
        'not fit). Try again in a few minutes, or ask an administrator.',
    );
    expect(describeError('HypervisorCapacity', 400)).toBe(
      'No room to start more machines right now. Try again in a few minutes, or ask an administrator.',
    );
    expect(errorFactsOf({ capacity: 'x'.repeat(500) }).capacity).toHaveLength(200);
    expect(errorFactsOf({ capacity: 7 })).toEqual({});
  });

  it('keeps the reason a domain error carries after its sentence', () => {
    expect(describeError('InvalidOperation The form has no file.', 400)).toBe(
      'This cannot be done: the form has no file.',
    );
    expect(describeError('InvalidOperation no NIC 3', 400)).toBe('This cannot be done: no NIC 3.');
    // A reason the catalogue knows by name says it all.
    expect(describeError('InvalidOperation LastAdministrator', 400)).toBe(
      'The last administrator who can sign in cannot be removed, disabled or lose the administrator role.',
    );
    expect(describeError('InvalidOperation CannotDisableSelf', 400)).toBe(
      'You cannot disable your own account: another administrator can.',
    );
  });

  it.each([
    [401, 'Unauthorized', 'You are signed out: sign in again to go on.'],
    [403, 'ActionForbidden', 'You are not allowed to do this.'],
    [404, 'Not Found', 'It was not found: it may have been deleted.'],
    [409, 'Conflict', 'Someone else changed this at the same time: reload the page and try again.'],
    [413, 'PayloadTooLarge', 'That is larger than the server accepts.'],
    [429, 'TooManyRequests', 'Too many requests in a short time: wait a minute and try again.'],
    [
      500,
      'Error',
      'Something went wrong on the server. Try again; if it keeps happening, tell an administrator.',
    ],
    [502, 'HTTP 502', 'The server cannot be reached right now: try again in a moment.'],
    [
      507,
      'Insufficient Storage',
      'Something went wrong on the server. Try again; if it keeps happening, tell an administrator.',
    ],
  ])('says a %i (%s) in words', (status, message, sentence) => {
    expect(describeError(message, status)).toBe(sentence);
  });

  it.each(['Failed to fetch', 'NetworkError when attempting to fetch resource.', 'Load failed'])(
    'says a request that got no answer (%s) could not reach the server',
    (message) => {
      expect(describeError(message, 0)).toBe(
        'The server could not be reached: check your connection and try again.',
      );
    },
  );

  it('leaves what it does not know to the caller', () => {
    expect(describeError('SessionExpired')).toBeUndefined();
    expect(describeError("Missing value for required property 'name'", 400)).toBeUndefined();
    // An upload's own sentence when the server did not answer.
    expect(describeError('The upload failed: no answer from the server.', 0)).toBeUndefined();
    expect(describeError('toString')).toBeUndefined();
  });

  it('reads only a whole count of gamespaces from a body', () => {
    expect(errorFactsOf({ message: 'WorkspaceNotIsolated', gamespaces: 3 })).toEqual({
      gamespaces: 3,
    });
    expect(errorFactsOf({ gamespaces: '3' })).toEqual({});
    expect(errorFactsOf({ gamespaces: 1.5 })).toEqual({});
    expect(errorFactsOf(null)).toEqual({});
  });
});

describe('errorMessage through the catalogue', () => {
  it('shows the sentence for an HTTP error, with the facts of its body', () => {
    expect(errorMessage({ status: 400, message: 'WorkspaceNotIsolated', gamespaces: 2 })).toBe(
      'Cannot save this machine while 2 gamespaces of this workspace are running. ' +
        'Delete them with Delete gamespaces at the top of the Templates tab first.',
    );
    expect(errorMessage({ status: 403, message: 'ActionForbidden' })).toBe(
      'You are not allowed to do this.',
    );
    expect(errorMessage({ status: 0, message: 'Failed to fetch' })).toBe(
      'The server could not be reached: check your connection and try again.',
    );
  });

  it('shows the sentence for a name wrapped in an error body or thrown as an Error', () => {
    expect(errorMessage({ status: 400, error: { message: 'AttemptLimitReached' } })).toBe(
      'No attempts left for this question set.',
    );
    expect(errorMessage(new Error('GamespaceIsExpired'))).toBe('This game has ended.');
  });

  it('keeps spec texts and client sentences as they are', () => {
    expect(errorMessage(new Error('Challenge progress unresolved'))).toBe(
      'Challenge progress unresolved',
    );
    expect(errorMessage(new Error('Network timed out'))).toBe('Network timed out');
    expect(
      errorMessage(new Error('Cannot send data if the connection is not in the Connected State')),
    ).toBe('Cannot send data if the connection is not in the Connected State');
  });
});

describe('which failures are worth trying again', () => {
  it.each([
    [{ status: 0, message: 'Failed to fetch' }, true],
    [{ status: 502, message: 'Bad Gateway' }, true],
    [{ status: 503, message: 'Service Unavailable' }, true],
    [{ status: 504, message: 'Gateway Timeout' }, true],
    [{ status: 500, message: 'Error' }, false],
    [{ status: 401, message: 'Unauthorized' }, false],
    [{ status: 403, message: 'ActionForbidden' }, false],
    [new Error('ResourceNotFound'), false],
  ])('%o: the server is away is %s', (error, away) => {
    expect(isServerAway(error)).toBe(away);
  });

  it('tells a refused credential (401) from every other failure', () => {
    expect(isSignedOut({ status: 401, message: 'Unauthorized' })).toBe(true);
    expect(isSignedOut({ status: 403, message: 'ActionForbidden' })).toBe(false);
    expect(isSignedOut({ status: 0, message: 'Failed to fetch' })).toBe(false);
    expect(isSignedOut('401')).toBe(false);
  });
});
