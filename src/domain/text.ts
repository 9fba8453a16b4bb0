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

/**
 * The text to show for an error (spec §8): the server's `error.message` (an HTTP error wraps the
 * response body in `error`), else the error's own `message`, else the value as a string; then
 * camel-case words are split ('ResourceNotFound' -> 'Resource Not Found').
 */
export function errorMessage(e: unknown): string {
  if (isRecord(e)) {
    if (isRecord(e.error) && nonEmptyString(e.error.message))
      return splitCamelCase(e.error.message);
    if (nonEmptyString(e.message)) return splitCamelCase(e.message);
  }
  return splitCamelCase(String(e));
}
