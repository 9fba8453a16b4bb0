import type { Plugin } from 'vite';

/** Writes `.br` and `.gz` beside every text file of `dir` that they make smaller. */
export function precompress(dir: string): Promise<void>;
/** The Vite plugin: compresses the SPA's output once the build has written it. */
export function precompressPlugin(): Plugin;
