import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createActor, fromEventObservable, fromPromise } from 'xstate';
import type { Template, TemplateSummary } from '../api/template';
import { gamespaceCleanupMachine } from './gamespaceCleanupMachine';
import { isoChooserMachine } from './isoChooserMachine';
import { templateEditorMachine } from './templateEditorMachine';
import { selectSavedTemplateName, selectTemplateText } from './templateEditorMachine.selectors';
import { templateListMachine, type TemplateListHubEvent } from './templateListMachine';
import {
  selectGamespaceCleanup,
  selectTemplateEditors,
  selectTemplateSelector,
} from './templateListMachine.selectors';
import { templateSelectorMachine } from './templateSelectorMachine';
import { flush } from './testing/deferred';

const template = (id: string, name: string, workspaceId = 'ws-1'): Template => ({
  id,
  name,
  workspaceId,
  isLinked: true,
});

function startList(templates: Template[]) {
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
            deleteTemplate: fromPromise<unknown, { templateId: string }>(async ({ input }) => {
              deletes.push(input.templateId);
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
              async () => template('t-new', 'router-456'),
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
    expect(editor && selectTemplateText('networks')(editor.getSnapshot())).toBe('wan');
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
