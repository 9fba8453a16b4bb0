/** Types of server/nodeVersion.mjs for the TypeScript code that imports it. */

export const SUPPORTED_LINES: ReadonlyArray<readonly [number, number, number]>;
export function unsupportedNode(version: string): string | null;
