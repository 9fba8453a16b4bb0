// PVE's errors as PveError kinds: from an HTTP answer (status, reason phrase, the body's message
// and per-parameter errors) or from a request that got no answer (network, TLS); and PveErrors
// as the driver's errors.

import { DriverError } from '../types';

export type PveErrorKind =
  | 'auth'
  | 'forbidden'
  | 'not-found'
  | 'invalid'
  | 'locked'
  | 'exists'
  | 'server'
  | 'network'
  | 'timeout'
  | 'task-failed'
  | 'tls';

interface PveErrorDetails {
  /** HTTP status, 0 when there was no answer. */
  status?: number;
  /** PVE's per-parameter errors (400). */
  errors?: Record<string, string>;
  /** The API path (below /api2/json) of the failed call. */
  path?: string;
  /** PVE's own text, without the method and path. */
  reason?: string;
}

export class PveError extends Error {
  override readonly name = 'PveError';
  readonly status: number;
  readonly errors: Record<string, string>;
  readonly path: string;
  /** PVE's text alone (the message adds the method and path). */
  readonly reason: string;

  constructor(
    readonly kind: PveErrorKind,
    message: string,
    details: PveErrorDetails = {},
  ) {
    super(message);
    this.status = details.status ?? 0;
    this.errors = details.errors ?? {};
    this.path = details.path ?? '';
    this.reason = details.reason ?? message;
  }
}

/** Whether PVE's text says another operation holds a lock. */
export const LOCK_TEXT = /can't lock file|\bis locked\b|got lock request timeout/i;
const NOT_FOUND_TEXT = /not exist|\bno such\b/i;
const EXISTS_TEXT = /already exists/i;

/** Whether a PVE error means another operation holds a lock ("can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout", "VM is locked (clone)"). */
export function isLockError(error: unknown): boolean {
  if (error instanceof PveError) return error.kind === 'locked';
  return error instanceof Error && LOCK_TEXT.test(error.message);
}

/** The kind of a 5xx answer, from PVE's reason text. */
function serverErrorKind(reason: string): PveErrorKind {
  if (LOCK_TEXT.test(reason)) return 'locked';
  if (NOT_FOUND_TEXT.test(reason)) return 'not-found';
  if (EXISTS_TEXT.test(reason)) return 'exists';
  return 'server';
}

function statusKind(status: number, reason: string): PveErrorKind {
  switch (status) {
    case 400:
      return 'invalid';
    case 401:
      return 'auth';
    case 403:
      return 'forbidden';
    case 404:
      return 'not-found';
    default:
      return status >= 500 ? serverErrorKind(reason) : 'invalid';
  }
}

export interface PveBody {
  data?: unknown;
  message?: unknown;
  errors?: unknown;
}

export function parseBody(text: string): PveBody | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as PveBody) : null;
  } catch {
    return null;
  }
}

function errorsOf(body: PveBody | null): Record<string, string> {
  const errors = body?.errors;
  if (!errors || typeof errors !== 'object') return {};
  return Object.fromEntries(Object.entries(errors).map(([key, value]) => [key, String(value)]));
}

/** The PveError of an HTTP answer that is not a success. */
export function answerError(
  method: string,
  path: string,
  status: number,
  statusMessage: string,
  body: PveBody | null,
): PveError {
  // The body's message is the whole text; the reason phrase only its first line.
  const full = typeof body?.message === 'string' ? body.message.trim() : '';
  const reason = full || statusMessage.trim() || `HTTP ${status}`;
  const errors = errorsOf(body);
  const listed = Object.entries(errors).map(([key, value]) => `${key}: ${value.trim()}`);
  const detail = listed.length > 0 ? `${reason} (${listed.join('; ')})` : reason;
  return new PveError(statusKind(status, reason), `PVE ${method} ${path}: ${detail}`, {
    status,
    errors,
    path,
    reason,
  });
}

/** OpenSSL's certificate verification codes and Node's TLS error codes. */
const TLS_CODE = /CERT|^ERR_TLS_|^ERR_SSL_|^UNABLE_TO_(GET|VERIFY)_/;

/** The PveError of a request that got no answer. */
export function transportError(method: string, path: string, error: unknown): PveError {
  if (error instanceof PveError) {
    // The pinning agent does not know which call it connects for; say it here.
    if (error.path) return error;
    return new PveError(error.kind, `PVE ${method} ${path}: ${error.message}`, {
      path,
      reason: error.message,
    });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  const text = error instanceof Error ? error.message : String(error);
  const kind: PveErrorKind = TLS_CODE.test(code) ? 'tls' : 'network';
  return new PveError(kind, `PVE ${method} ${path}: ${text}`, { path, reason: text });
}

/** HTTP statuses of a GET worth repeating: gateway trouble and PVE's proxy failing to reach a node. */
const RETRY_STATUSES = new Set([502, 503, 595, 596]);

export const isRetryable = (error: unknown): boolean =>
  error instanceof PveError &&
  (error.kind === 'network' || error.kind === 'timeout' || RETRY_STATUSES.has(error.status));

/** PVE's errors in the driver's vocabulary. */
export function driverErrorOf(error: unknown): unknown {
  if (!(error instanceof PveError)) return error;
  switch (error.kind) {
    case 'not-found':
      return new DriverError('not-found', error.message);
    case 'invalid':
      return new DriverError('invalid-request', error.message);
    case 'locked':
      return new DriverError('invalid-state', error.message);
    default:
      return new DriverError('unavailable', error.message);
  }
}
