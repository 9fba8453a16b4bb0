import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, isCrdtChanges, toBase64 } from '../../src/domain/coedit';
import {
  SEED_TEXT,
  simulate,
  type SimulatedServer,
} from '../../src/domain/testing/coeditSimulation';
import { createTestDatabase, testEngines, type TestDatabase } from '../../tests/server/databases';
import { openStore, type Store } from '../store/db';
import { createDocumentRepository } from '../store/repositories/documents';
import { createDocumentService, type DocumentService } from './documents';
import type { EventPayload } from './fields';
import { newId } from './ids';
import { actorFrom } from './actor';

// The co-editing convergence proof (src/domain/testing/coeditSimulation.ts) through the server's
// document service and a real store: batches are appended to the log as the hub's Edited does,
// the log is compacted after a few rows so that merges of merges happen in every run, a reference
// client's whole text is reconciled into the log and relayed as the service publishes it, the
// SPA's saves write the file from the log, and late joiners load the log's merge. Each run starts
// from a markdown file written before the log existed, so the seeding is part of it too.

/** Fewer on PostgreSQL, whose round trips cost more: the runs stay within seconds. */
const RUNS = { sqlite: 100, postgres: 30 } as const;
const COMPACT_AFTER = 3;

const actor = actorFrom(null, { id: 'editor', name: 'Editor' }, 'creator', {
  workspaceLimit: 0,
  gamespaceLimit: 0,
});

describe.each(testEngines())(
  'co-editing convergence through the document service on %s',
  (engine) => {
    let database: TestDatabase;
    let store: Store;
    let docsDir: string;
    let documents: DocumentService;
    /** The DOCUMENT.UPDATED updates the service published, by workspace. */
    const relayed = new Map<string, Uint8Array[]>();

    beforeAll(async () => {
      database = await createTestDatabase(engine);
      store = await openStore({ url: database.url, schema: database.schema });
      docsDir = mkdtempSync(join(tmpdir(), 'topoplay-docs-'));
      mkdirSync(docsDir, { recursive: true });
      documents = createDocumentService(createDocumentRepository(store.db), {
        docsDir,
        access: { exists: async () => true, canEdit: async () => true },
        publisher: {
          publish(group: string, payload: EventPayload) {
            if (payload.action !== 'DOCUMENT.UPDATED' || !isCrdtChanges(payload.model)) return;
            relayed.set(group, [...(relayed.get(group) ?? []), fromBase64(payload.model.update)]);
          },
        },
        compactAfterRows: COMPACT_AFTER,
      });
    });
    afterAll(async () => {
      await store?.close();
      await database?.cleanup();
      if (docsDir) rmSync(docsDir, { recursive: true, force: true });
    });

    /** One document of a new workspace, as the simulation's server. */
    function serviceServer(): SimulatedServer & { rows(): Promise<number> } {
      const id = newId();
      writeFileSync(join(docsDir, `${id}.md`), SEED_TEXT);
      return {
        edited: (update) => documents.edited(id, { crdt: 'yjs', update: toBase64(update) }, actor),
        state: async () => fromBase64((await documents.crdt(actor, id)).update),
        async save() {
          await documents.save(actor, id, '', true);
          return documents.read(actor, id);
        },
        async put(text) {
          const before = relayed.get(id)?.length ?? 0;
          await documents.save(actor, id, text, false);
          const after = relayed.get(id) ?? [];
          expect(after.length - before).toBeLessThanOrEqual(1);
          return after.length > before ? (after[after.length - 1] as Uint8Array) : null;
        },
        rows: () => createDocumentRepository(store.db).count(id),
      };
    }

    it(`converges without losing a keystroke in ${RUNS[engine]} random runs`, async () => {
      for (let seed = 1; seed <= RUNS[engine]; seed++) {
        const server = serviceServer();
        const failure = await simulate(seed, server, { putRate: 0.05 });
        if (failure !== null) expect.fail(`seed ${seed}: ${failure}`);
        // Compaction kept the log short.
        expect(await server.rows()).toBeLessThanOrEqual(COMPACT_AFTER + 1);
      }
      // Reference clients' saves were reconciled into the logs and relayed.
      expect([...relayed.values()].flat().length).toBeGreaterThan(RUNS[engine] / 2);
    }, 90_000);

    it('notices a service that loses an update (the check is not vacuous)', async () => {
      let failure: string | null = null;
      for (let seed = 1; seed <= 10 && failure === null; seed++) {
        const server = serviceServer();
        let stored = 0;
        const lossy: SimulatedServer = {
          ...server,
          edited: async (update) => {
            if (++stored !== 2) await server.edited(update);
          },
        };
        failure = await simulate(seed, lossy);
      }
      expect(failure).not.toBeNull();
    });
  },
);
