/**
 * Monaco as the Document tab uses it, from the local package and never from a CDN: the editor
 * core, the editing features a markdown author needs and the markdown language, not the 4.5 MB of
 * every language and feature. Only the lazily loaded editor imports this module.
 */
import { loader } from '@monaco-editor/react';
import * as monaco from 'monaco-editor/editor/editor.api';
import 'monaco-editor/editor/browser/coreCommands';
import 'monaco-editor/editor/contrib/clipboard/browser/clipboard';
import 'monaco-editor/editor/contrib/cursorUndo/browser/cursorUndo';
import 'monaco-editor/editor/contrib/find/browser/findController';
import 'monaco-editor/editor/contrib/linesOperations/browser/linesOperations';
import 'monaco-editor/editor/contrib/multicursor/browser/multicursor';
// Shows the read-only message ('Loading document...') to someone typing.
import 'monaco-editor/editor/contrib/readOnlyMessage/browser/contribution';
import 'monaco-editor/editor/contrib/wordOperations/browser/wordOperations';
import 'monaco-editor/languages/definitions/markdown/register';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';

// The editor's own worker (text diffing, word ranges); markdown has no language worker.
self.MonacoEnvironment = { getWorker: () => new EditorWorker() };

loader.config({ monaco });

export { monaco };
