// The Warm pools form's rules, apart from the machine that applies them: what the server would
// refuse, what reads as a workspace id, where the arrow keys move the highlight.

import { MAX_POOL_SIZE } from '../domain/pools';

/**
 * The largest pool the server takes, the same rule as the server's: checked here too so that a
 * size the server would refuse is explained before a round trip.
 */
export { MAX_POOL_SIZE };

/**
 * A workspace id: 32 hex digits as our server makes them (server/core/ids.ts), or a GUID with
 * dashes as the reference's.
 */
const WORKSPACE_ID = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12})$/i;

/** True for text that is a workspace id (pasted, say) rather than a name to search for. */
export const isWorkspaceId = (text: string): boolean => WORKSPACE_ID.test(text.trim());

/** What is wrong with the form as typed: the field to fix, and why. */
export interface PoolFormProblem {
  field: 'workspace' | 'size';
  message: string;
}

/** Why the form cannot be sent as typed, or null when it can. */
export function poolFormProblem(workspaceId: string, size: string): PoolFormProblem | null {
  if (workspaceId.trim() === '') {
    return {
      field: 'workspace',
      message: 'Choose a workspace: type part of its name and pick it, or paste its id.',
    };
  }
  const text = size.trim();
  const n = Number(text);
  if (text === '' || !Number.isInteger(n) || n < 0 || n > MAX_POOL_SIZE) {
    return {
      field: 'size',
      message: `The size must be a whole number from 0 to ${MAX_POOL_SIZE}.`,
    };
  }
  return null;
}

/** Where the highlight goes from `from` (-1: none) by a step, wrapping round `count` matches. */
export function moveHighlight(from: number, by: 1 | -1, count: number): number {
  if (count === 0) return -1;
  if (from < 0) return by > 0 ? 0 : count - 1;
  return (from + by + count) % count;
}
