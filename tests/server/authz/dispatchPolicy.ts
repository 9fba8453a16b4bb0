import { newId } from '../../../server/core/ids';
import type { ActorKind, World } from './fixtures';
import type { PolicyRow, Target } from './policy';

// The dispatcher's rows of the written policy (wire reference §1.5): the default policy (bearer
// or API key, so no tickets or cookies), and on a gamespace's dispatches admins, those who may
// manage it (gs.CanManage), observers whose scope matches its workspace's audience and its own
// agent (its grader key). Workers of its workspace are not among them.

/** G's dispatches: player manages G (apiKey is player's), observerIn's scope is W's audience. */
const DISPATCH_G: readonly ActorKind[] = ['player', 'apiKey', 'observerIn', 'admin', 'graderKey'];

/** A dispatch of G for host vm1, written straight to the store. */
async function insertDispatch(w: World): Promise<string> {
  const id = newId();
  await w.server.app.store.db
    .insertInto('dispatches')
    .values({
      id,
      referenceId: id,
      trigger: 'hostname',
      targetGroup: w.G.id,
      targetName: 'vm1',
      result: '',
      error: '',
      whenUpdated: 0,
      whenCreated: Date.now(),
    })
    .execute();
  return id;
}

/** The dispatch refused actors try: one per world (a world is one server's). */
const shared = new WeakMap<World, Promise<string>>();
const sharedDispatch = (w: World): Promise<string> => {
  let id = shared.get(w);
  if (!id) shared.set(w, (id = insertDispatch(w)));
  return id;
};
const freshDispatch = async (w: World): Promise<Target> => ({
  game: w.G,
  id: await insertDispatch(w),
});

/** Why the shared dispatch is no longer as it was, or null. */
async function intact(w: World): Promise<string | null> {
  const id = await sharedDispatch(w);
  const row = await w.server.app.store.db
    .selectFrom('dispatches')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return `dispatch ${id} is gone`;
  return row.whenUpdated === 0 && row.result === '' ? null : `dispatch ${id} was answered`;
}

export const DISPATCH_POLICY: PolicyRow[] = [
  {
    method: 'POST',
    url: '/api/dispatch',
    cases: [
      {
        name: 'G',
        allow: DISPATCH_G,
        request: (w) => ({
          method: 'POST',
          url: '/api/dispatch',
          payload: { trigger: 'hostname', targetGroup: w.G.id, targetName: 'vm1' },
        }),
      },
      {
        // otherPlayer's gamespace of a `gamma` workspace: no observer of the matrix matches.
        name: "otherPlayer's gamespace",
        allow: ['otherPlayer', 'admin'],
        request: (w) => ({
          method: 'POST',
          url: '/api/dispatch',
          payload: { trigger: 'hostname', targetGroup: w.H.id },
        }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/dispatch/:id',
    cases: [
      {
        allow: DISPATCH_G,
        request: async (w) => ({ url: `/api/dispatch/${await sharedDispatch(w)}` }),
      },
    ],
  },
  {
    method: 'PUT',
    url: '/api/dispatch',
    cases: [
      {
        allow: DISPATCH_G,
        shared: (w) => ({ game: w.G, id: '' }),
        fresh: freshDispatch,
        intact,
        request: async (w, t) => ({
          method: 'PUT',
          url: '/api/dispatch',
          payload: { id: t.id || (await sharedDispatch(w)), result: 'vm1', targetName: 'vm1' },
        }),
      },
    ],
  },
  {
    method: 'DELETE',
    url: '/api/dispatch/:id',
    cases: [
      {
        allow: DISPATCH_G,
        shared: (w) => ({ game: w.G, id: '' }),
        fresh: freshDispatch,
        intact,
        request: async (w, t) => ({
          method: 'DELETE',
          url: `/api/dispatch/${t.id || (await sharedDispatch(w))}`,
        }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/dispatches/agents',
    cases: [
      {
        // The agents' own key reaches only the routes its agent needs (grants.ts): not this one.
        name: 'G',
        allow: DISPATCH_G.filter((actor) => actor !== 'graderKey'),
        request: (w) => ({ url: `/api/dispatches/agents?gs=${w.G.id}` }),
      },
      {
        name: "otherPlayer's gamespace",
        allow: ['otherPlayer', 'admin'],
        request: (w) => ({ url: `/api/dispatches/agents?gs=${w.H.id}` }),
      },
    ],
  },
  {
    method: 'GET',
    url: '/api/dispatches',
    cases: [
      { name: 'G', allow: DISPATCH_G, request: (w) => ({ url: `/api/dispatches?gs=${w.G.id}` }) },
      {
        name: "otherPlayer's gamespace",
        allow: ['otherPlayer', 'admin'],
        request: (w) => ({ url: `/api/dispatches?gs=${w.H.id}` }),
      },
    ],
  },
];
