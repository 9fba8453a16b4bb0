import type { Plugin } from 'vite';

/** The Vite plugin: writes home.html, the home page rendered into the built index.html. */
export function prerenderPlugin(): Plugin;
