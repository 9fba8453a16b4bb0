import type { ParamValue } from './schema';

// How the PVE API simulator refuses a call, as PVE does: an HTTP status whose reason phrase is
// the message (PVE puts the error text in the status line), and for a parameter error the
// per-parameter reasons under `errors`. A handler throws one; the server turns it into the reply.

export class PveHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Record<string, string>,
  ) {
    super(message);
    this.name = 'PveHttpError';
  }
}

/** What PVE answers when its handler dies with a message: 500 and the message. */
export const failure = (message: string): PveHttpError => new PveHttpError(500, message);

/** PVE's parameter exception: 400 "Parameter verification failed." with the reasons. */
export const paramError = (errors: Record<string, string>): PveHttpError =>
  new PveHttpError(400, 'Parameter verification failed.', errors);

/** The message of anything thrown, for a task's exit status. */
export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

// Typed access to checked parameters. The schema check already enforced the types, so these
// only narrow the union; a value of another type reads as absent.

export function textParam(params: Record<string, ParamValue>, key: string): string | undefined {
  const value = params[key];
  return typeof value === 'string' ? value : undefined;
}

export function intParam(params: Record<string, ParamValue>, key: string): number | undefined {
  const value = params[key];
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  return undefined;
}

export function flagParam(params: Record<string, ParamValue>, key: string): boolean | undefined {
  const value = params[key];
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1') return true;
  if (value === 0 || value === '0') return false;
  return undefined;
}

/** A parameter as the string PVE would store in a config file (booleans as 0/1). */
export function configText(value: ParamValue): string {
  if (typeof value === 'boolean') return value ? '1' : '0';
  return String(value);
}
