import { describe, expect, it } from 'vitest';
import { errorMessage, splitCamelCase } from './text';

describe('splitCamelCase', () => {
  it.each([
    ['ResourceNotFound', 'Resource Not Found'],
    ['InvalidIPAddress', 'Invalid IP Address'],
    ['IPAddressInvalid', 'IP Address Invalid'],
    ['WorkspaceLimitReached2', 'Workspace Limit Reached2'],
    ['Version2Required', 'Version2 Required'],
    ['invalidOperation', 'invalid Operation'],
    ['Error', 'Error'],
    ['API', 'API'],
    ['', ''],
  ])('splits %s into %s', (text, split) => {
    expect(splitCamelCase(text)).toBe(split);
  });

  it.each([
    'Network timed out',
    'IFrame timed out without a response',
    'Challenge progress unresolved',
  ])('leaves text that already has spaces alone: %s', (text) => {
    expect(splitCamelCase(text)).toBe(text);
  });
});

describe('errorMessage', () => {
  it("prefers the server's error.message", () => {
    const httpError = { message: 'Http failure response', error: { message: 'ResourceNotFound' } };
    expect(errorMessage(httpError)).toBe('It was not found: it may have been deleted.');
  });

  it('falls back to the error message when error.message is missing or empty', () => {
    expect(errorMessage(new Error('InvalidIPAddress'))).toBe('Invalid IP Address');
    expect(errorMessage({ message: 'ActionForbidden', error: {} })).toBe(
      'You are not allowed to do this.',
    );
    expect(errorMessage({ message: 'ActionForbidden', error: { message: '' } })).toBe(
      'You are not allowed to do this.',
    );
    expect(errorMessage({ message: 'ActionForbidden', error: 'teapot' })).toBe(
      'You are not allowed to do this.',
    );
  });

  it('falls back to the value as a string', () => {
    expect(errorMessage('SessionExpired')).toBe('Session Expired');
    expect(errorMessage(404)).toBe('404');
    expect(errorMessage(null)).toBe('null');
    expect(errorMessage({ message: 42 })).toBe('[object Object]');
  });

  it('splits the camel case of a name the catalogue does not know', () => {
    expect(errorMessage({ status: 400, message: 'GamespaceLimitReached' })).toBe(
      'Gamespace Limit Reached',
    );
  });

  it('keeps identity-client sentences as they are', () => {
    expect(errorMessage(new Error('IFrame timed out without a response'))).toBe(
      'IFrame timed out without a response',
    );
  });
});
