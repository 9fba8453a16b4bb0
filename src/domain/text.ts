import { describeError, errorFactsOf } from './errors';

/** Message text as the SPA shows it (spec §8: camel-case words are split by spaces). */

/**
 * 'ResourceNotFound' -> 'Resource Not Found', 'InvalidIPAddress' -> 'Invalid IP Address'.
 * Text that already has spaces is a sentence, not an identifier, and is left alone: splitting it
 * would break words such as 'IFrame' in 'IFrame timed out without a response'.
 */
export function splitCamelCase(text: string): string {
  if (/\s/.test(text)) return text;
  return (
    text
      // a lower-case letter or digit followed by a capital starts a new word: 'tN' -> 't N'
      .replace(/([\p{Ll}\d])(\p{Lu})/gu, '$1 $2')
      // the last capital of an acronym starts the next word: 'IPAddress' -> 'IP Address'
      .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

const nonEmptyString = (value: unknown): value is string =>
  typeof value === 'string' && value !== '';

/** The message an error carries, the HTTP status it came with, and the body with our facts. */
function partsOf(e: unknown): { text: string; status?: number; body?: unknown } {
  if (!isRecord(e)) return { text: String(e) };
  const status = typeof e.status === 'number' ? e.status : undefined;
  if (isRecord(e.error) && nonEmptyString(e.error.message)) {
    return { text: e.error.message, status, body: e.error };
  }
  if (nonEmptyString(e.message)) return { text: e.message, status, body: e };
  return { text: String(e), status };
}

/**
 * The text to show for an error (spec §8): the server's `error.message` (an HTTP error wraps the
 * response body in `error`), else the error's own `message`, else the value as a string; then
 * the catalogue's sentence for it (src/domain/errors.ts: 'ActionForbidden' -> 'You are not
 * allowed to do this.'), or for a name the catalogue does not know, its camel-case words split
 * ('SessionExpired' -> 'Session Expired').
 */
export function errorMessage(e: unknown): string {
  const { text, status, body } = partsOf(e);
  return describeError(text, status, errorFactsOf(body)) ?? splitCamelCase(text);
}
