import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromEventObservable, fromPromise } from 'xstate';
import type { Template, TemplateSummary } from '../api/template';
import { gamespaceCleanupMachine } from './gamespaceCleanupMachine';
import { isoChooserMachine } from './isoChooserMachine';
import { templateEditorMachine } from './templateEditorMachine';
import { templateActionsMachine } from './templateActionsMachine';
import {
  selectSavedTemplateName,
  selectTemplateForm,
  selectTemplateText,
} from './templateEditorMachine.selectors';
import { templateListMachine, type TemplateListHubEvent } from './templateListMachine';
import {
  selectGamespaceCleanup,
  selectTemplateEditors,
  selectTemplateSelector,
  selectTopologyTemplates,
} from './templateListMachine.selectors';
import { templateSelectorMachine } from './templateSelectorMachine';
import { flush } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const template = (id: string, name: string, workspaceId = 'ws-1'): Template => ({
  id,
  name,
  workspaceId,
  isLinked: true,
});

/** `linked` answers the selector's links (by default one template, always the same). */
function startList(templates: Template[], linked = () => template('t-new', 'router-456')) {
  const hub = new Subject<TemplateListHubEvent>();
  const deletes: string[] = [];
  const actor = createActor(
    templateListMachine.provide({
      actors: {
        templateEvents: fromEventObservable<TemplateListHubEvent, { workspaceId: string }>(
          () => hub,
        ),
        templateEditor: templateEditorMachine.provide({
          actors: {
            actions: templateActionsMachine.provide({
              actors: {
                deleteTemplate: fromPromise<unknown, { templateId: string }>(async ({ input }) => {
                  deletes.push(input.templateId);
                }),
              },
            }),
            isoChooser: isoChooserMachine.provide({
              actors: {
                listIsos: fromPromise<
                  string[],
                  { workspaceId: string; term: string; local: boolean }
                >(async () => []),
              },
            }),
          },
        }),
        templateSelector: templateSelectorMachine.provide({
          actors: {
            searchTemplates: fromPromise<
              { published: TemplateSummary[]; scoped: TemplateSummary[] },
              { workspaceId: string; term: string }
            >(async () => ({ published: [], scoped: [] })),
            linkTemplate: fromPromise<Template, { templateId: string; workspaceId: string }>(
              async () => linked(),
            ),
          },
        }),
        gamespaceCleanup: gamespaceCleanupMachine.provide({
          actors: {
            endGamespaces: fromPromise<unknown, { workspaceId: string }>(async () => undefined),
          },
        }),
      },
    }),
    { input: { workspaceId: 'ws-1', templates } },
  ).start();
  const names = () =>
    selectTemplateEditors(actor.getSnapshot()).map((editor) =>
      selectSavedTemplateName(editor.getSnapshot()),
    );
  return { actor, hub, deletes, names };
}

describe('templateListMachine', () => {
  it('opens an editor per template, sorted by name with case ignored', () => {
    const { names } = startList([
      template('t-1', 'router-1'),
      template('t-2', 'Kali'),
      template('t-3', 'linux-server-2'),
    ]);
    expect(names()).toEqual(['Kali', 'linux-server-2', 'router-1']);
  });

  it("adds a linked template at the end, once, though the hub echoes the link's answer", async () => {
    const { actor, hub, names } = startList([template('t-1', 'zeta')]);
    selectTemplateSelector(actor.getSnapshot())?.send({
      type: 'selector.addRequested',
      templateId: 'stock-router',
    });
    await flush();
    hub.next({ type: 'template.added', template: template('t-new', 'router-456') });
    expect(names()).toEqual(['zeta', 'router-456']);
  });

  it("ignores another workspace's templates", () => {
    const { hub, names } = startList([]);
    hub.next({ type: 'template.added', template: template('t-9', 'elsewhere', 'ws-2') });
    expect(names()).toEqual([]);
  });

  it("passes the hub's updates to the template's editor", () => {
    const { actor, hub } = startList([template('t-1', 'router-1')]);
    hub.next({
      type: 'template.updated',
      template: { ...template('t-1', 'router-1'), networks: 'wan' },
    });
    const [editor] = selectTemplateEditors(actor.getSnapshot());
    const form = editor && selectTemplateForm(editor.getSnapshot());
    expect(form && selectTemplateText('networks')(form.getSnapshot())).toBe('wan');
  });

  it('keeps the templates the topology draws: loaded, linked, changed on the hub, removed', async () => {
    const { actor, hub } = startList([template('t-1', 'zeta'), template('t-2', 'alpha')]);
    const drawn = () =>
      selectTopologyTemplates(actor.getSnapshot()).map((t) => `${t.name}:${t.networks ?? ''}`);
    expect(drawn()).toEqual(['alpha:', 'zeta:']);
    hub.next({
      type: 'template.added',
      template: { ...template('t-3', 'router'), networks: 'a b' },
    });
    hub.next({
      type: 'template.updated',
      template: { ...template('t-1', 'zeta'), networks: 'lan' },
    });
    expect(drawn()).toEqual(['alpha:', 'zeta:lan', 'router:a b']);
    hub.next({ type: 'template.removed', templateId: 't-2' });
    hub.next({ type: 'template.added', template: template('t-9', 'elsewhere', 'ws-2') });
    expect(drawn()).toEqual(['zeta:lan', 'router:a b']);
  });

  it('closes the editor of a template removed on the hub', () => {
    const { actor, hub, names } = startList([template('t-1', 'a'), template('t-2', 'b')]);
    const [first] = selectTemplateEditors(actor.getSnapshot());
    hub.next({ type: 'template.removed', templateId: 't-1' });
    expect(names()).toEqual(['b']);
    expect(first?.getSnapshot().status).toBe('stopped');
  });

  it('closes the editor of a template its editor deleted', async () => {
    const { actor, deletes, names } = startList([template('t-1', 'a')]);
    const [editor] = selectTemplateEditors(actor.getSnapshot());
    editor?.send({ type: 'template.deleteRequested' });
    editor?.send({ type: 'template.deleteConfirmed' });
    await flush();
    expect(deletes).toEqual(['t-1']);
    expect(names()).toEqual([]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(templateListMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ workspaceId: 'ws-1', templates: [template('t-1', 'a')] }],
      }),
    ).toEqual([]);
  });

  it('runs the template selector and the gamespace warning for the workspace', () => {
    const { actor } = startList([]);
    expect(selectTemplateSelector(actor.getSnapshot())?.getSnapshot().context.workspaceId).toBe(
      'ws-1',
    );
    expect(selectGamespaceCleanup(actor.getSnapshot())?.getSnapshot().context.workspaceId).toBe(
      'ws-1',
    );
  });
});

/**
 * Model-based test: the editors of the Templates tab as templates come and go by every route
 * (the hub's TEMPLATE.* events, the selector's links, the editors' deletes), with the echoes
 * and other workspaces' events that must change nothing. The model counts the editors (up to
 * two); the test keeps the list it expects and checks the editors shown, in order.
 */
describe('templateListMachine against its model', () => {
  type ModelEvent =
    | { type: 'ADDED' }
    | { type: 'ADDED_AGAIN' }
    | { type: 'ADDED_ELSEWHERE' }
    | { type: 'LINKED' }
    | { type: 'UPDATED' }
    | { type: 'REMOVED' }
    | { type: 'DELETED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'templateListModel',
    initial: 'none',
    states: {
      none: { on: { ADDED: 'one', LINKED: 'one', ADDED_ELSEWHERE: 'none' } },
      one: {
        on: {
          ADDED: 'two',
          LINKED: 'two',
          ADDED_AGAIN: 'one',
          ADDED_ELSEWHERE: 'one',
          UPDATED: 'one',
          REMOVED: 'none',
          DELETED: 'none',
        },
      },
      two: { on: { ADDED_AGAIN: 'two', UPDATED: 'two', REMOVED: 'one', DELETED: 'one' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, templateListMachine, {
        // The machine has a single state: the editors are its children, held in context.
        states: { none: [], one: [], two: [] },
        // An editor's new server copy, which only the topology follows: the test above.
        unmodelledEvents: ['template.changed'],
        events: {
          ADDED: 'template.added',
          ADDED_AGAIN: 'template.added',
          ADDED_ELSEWHERE: 'template.added',
          LINKED: 'template.linked',
          UPDATED: 'template.updated',
          REMOVED: 'template.removed',
          DELETED: 'template.deleted',
        },
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      let next = 0;
      const { actor, hub, deletes, names } = startList([], () =>
        template(`t-${++next}`, `linked-${next}`),
      );
      /** The templates the tab should show, in order. */
      let shown: Template[] = [];
      const deleted: string[] = [];
      const editorOf = (id: string) =>
        selectTemplateEditors(actor.getSnapshot()).find((e) => e.id === `template:${id}`);
      const expectEditors = (count: number) => () => {
        expect(shown).toHaveLength(count);
        expect(names()).toEqual(shown.map((t) => t.name));
        for (const t of shown) {
          const editor = editorOf(t.id);
          const form = editor && selectTemplateForm(editor.getSnapshot());
          expect(form && selectTemplateText('networks')(form.getSnapshot())).toBe(t.networks ?? '');
        }
        expect(deletes).toEqual(deleted);
      };
      const first = () => shown[0] as Template;
      await path.test({
        states: { none: expectEditors(0), one: expectEditors(1), two: expectEditors(2) },
        events: {
          ADDED: () => {
            const added = template(`t-${++next}`, `added-${next}`);
            shown = [...shown, added];
            hub.next({ type: 'template.added', template: added });
          },
          ADDED_AGAIN: () => hub.next({ type: 'template.added', template: first() }),
          ADDED_ELSEWHERE: () =>
            hub.next({ type: 'template.added', template: template('t-x', 'elsewhere', 'ws-2') }),
          LINKED: async () => {
            selectTemplateSelector(actor.getSnapshot())?.send({
              type: 'selector.addRequested',
              templateId: 'stock',
            });
            await flush();
            shown = [...shown, template(`t-${next}`, `linked-${next}`)];
          },
          UPDATED: () => {
            const updated = { ...first(), networks: `wan-${++next}` };
            shown = [updated, ...shown.slice(1)];
            hub.next({ type: 'template.updated', template: updated });
          },
          REMOVED: () => {
            const { id } = first();
            const editor = editorOf(id);
            shown = shown.slice(1);
            hub.next({ type: 'template.removed', templateId: id });
            expect(editor?.getSnapshot().status).toBe('stopped');
          },
          DELETED: async () => {
            const { id } = first();
            const editor = editorOf(id);
            deleted.push(id);
            shown = shown.slice(1);
            editor?.send({ type: 'template.deleteRequested' });
            editor?.send({ type: 'template.deleteConfirmed' });
            await flush();
            expect(editor?.getSnapshot().status).toBe('stopped');
          },
        },
      });
    });
  }
});
