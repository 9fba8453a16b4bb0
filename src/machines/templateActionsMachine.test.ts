import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise } from 'xstate';
import type { Template, TemplateSummary } from '../api/template';
import {
  templateActionsMachine,
  type TemplateActionsEvent,
  type TemplateActionsReport,
} from './templateActionsMachine';
import {
  selectAreActionsIdle,
  selectIsChoosingSibling,
  selectIsConfirmingTemplateDelete,
  selectIsTemplateBusy,
  selectSiblings,
  selectTemplateErrors,
} from './templateEditorMachine.selectors';
import { deferred, flush } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const TEMPLATE: Template = { id: 't-1', name: 'web-01', workspaceId: 'ws-1', isLinked: false };
const SIBLING: TemplateSummary = { id: 't-9', name: 'web-v2', parentId: 'stock-1' };

interface Call {
  call: string;
  input: unknown;
  succeed: () => void;
  fail: (error: unknown) => void;
}

/** Every call waits for the test to settle it; `reports` are what the editor was told. */
function startActions() {
  const calls: Call[] = [];
  const reports: TemplateActionsReport[] = [];
  const reportTo = createActor(
    fromCallback<TemplateActionsReport>(({ receive }) => receive((event) => reports.push(event))),
  ).start();
  /** A call that answers `answer(input)` when the test has it succeed. */
  const recorder =
    <I, O>(call: string, answer: (input: I) => O) =>
    ({ input }: { input: I }) => {
      const result = deferred<O>();
      calls.push({
        call,
        input,
        succeed: () => result.resolve(answer(input)),
        fail: (error) => result.reject(error),
      });
      return result.promise;
    };
  const actor = createActor(
    templateActionsMachine.provide({
      actors: {
        unlinkTemplate: fromPromise(
          recorder<{ templateId: string; workspaceId: string }, Template>('unlink', () => TEMPLATE),
        ),
        listSiblings: fromPromise(
          recorder<{ templateId: string }, TemplateSummary[]>('siblings', () => [SIBLING]),
        ),
        relinkTemplate: fromPromise(
          recorder<{ templateId: string; parentId: string; workspaceId: string }, Template>(
            'relink',
            ({ parentId }) => ({ ...TEMPLATE, parentId }),
          ),
        ),
        deleteTemplate: fromPromise(
          recorder<{ templateId: string }, unknown>('delete', () => null),
        ),
      },
    }),
    { input: { templateId: 't-1', workspaceId: 'ws-1', reportTo } },
  ).start();
  const send = (event: TemplateActionsEvent) => actor.send(event);
  const snapshot = () => actor.getSnapshot();
  const settle = async (outcome: 'ok' | { reject: unknown }) => {
    const call = calls.at(-1);
    if (!call) throw new Error('no call');
    if (outcome === 'ok') call.succeed();
    else call.fail(outcome.reject);
    await flush();
  };
  return { actor, calls, reports, send, snapshot, settle };
}

describe('templateActionsMachine', () => {
  it('unlinks, busy until the server answers, and tells the editor the template as it now is', async () => {
    const a = startActions();
    a.send({ type: 'template.unlinkRequested' });
    expect(a.calls.map(({ call, input }) => ({ call, input }))).toEqual([
      { call: 'unlink', input: { templateId: 't-1', workspaceId: 'ws-1' } },
    ]);
    expect(selectIsTemplateBusy(a.snapshot())).toBe(true);
    expect(selectAreActionsIdle(a.snapshot())).toBe(false);
    await a.settle('ok');
    expect(selectIsTemplateBusy(a.snapshot())).toBe(false);
    expect(a.reports).toEqual([{ type: 'template.linkChanged', template: TEMPLATE }]);
  });

  it('takes one request at a time', async () => {
    const a = startActions();
    a.send({ type: 'template.relinkRequested' });
    a.send({ type: 'template.unlinkRequested' });
    a.send({ type: 'template.deleteRequested' });
    expect(a.calls.map((c) => c.call)).toEqual(['siblings']);
    expect(a.snapshot().can({ type: 'template.deleteRequested' })).toBe(false);
  });

  it('lists the siblings, is not busy while the author chooses, and re-links to the chosen one', async () => {
    const a = startActions();
    a.send({ type: 'template.relinkRequested' });
    await a.settle('ok');
    expect(selectIsChoosingSibling(a.snapshot())).toBe(true);
    expect(selectIsTemplateBusy(a.snapshot())).toBe(false);
    expect(selectSiblings(a.snapshot())).toEqual([SIBLING]);
    a.send({ type: 'template.siblingChosen', parentId: 't-9' });
    expect(a.calls.at(-1)?.input).toEqual({
      templateId: 't-1',
      parentId: 't-9',
      workspaceId: 'ws-1',
    });
    await a.settle('ok');
    expect(a.reports).toEqual([
      { type: 'template.linkChanged', template: { ...TEMPLATE, parentId: 't-9' } },
    ]);
    expect(selectAreActionsIdle(a.snapshot())).toBe(true);
  });

  it('deletes only once confirmed, and tells the editor', async () => {
    const a = startActions();
    a.send({ type: 'template.deleteRequested' });
    expect(selectIsConfirmingTemplateDelete(a.snapshot())).toBe(true);
    a.send({ type: 'template.deleteCancelled' });
    a.send({ type: 'template.deleteRequested' });
    a.send({ type: 'template.deleteConfirmed' });
    expect(a.calls.map(({ call, input }) => ({ call, input }))).toEqual([
      { call: 'delete', input: { templateId: 't-1' } },
    ]);
    await a.settle('ok');
    expect(a.reports).toEqual([{ type: 'template.deleted', templateId: 't-1' }]);
  });

  it('lists each failure, TemplateHasDescendents explained, until dismissed', async () => {
    const a = startActions();
    a.send({ type: 'template.unlinkRequested' });
    await a.settle({ reject: { status: 403, message: 'ActionForbidden' } });
    a.send({ type: 'template.deleteRequested' });
    a.send({ type: 'template.deleteConfirmed' });
    await a.settle({ reject: { status: 400, message: 'TemplateHasDescendents' } });
    expect(selectTemplateErrors(a.snapshot())).toEqual([
      'You are not allowed to do this.',
      'Other templates were made from this one, so it cannot be deleted.',
    ]);
    expect(a.reports).toEqual([]);
    a.send({ type: 'template.errorDismissed', index: 0 });
    expect(selectTemplateErrors(a.snapshot())).toHaveLength(1);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(templateActionsMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ templateId: 't-1', workspaceId: 'ws-1' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: one request at a time (spec §2 Template editor, §5), each failure listed,
 * driving the real actor against calls the test settles.
 */
describe('templateActionsMachine against the request model', () => {
  type ModelEvent =
    | { type: 'UNLINK' }
    | { type: 'RELINK' }
    | { type: 'CHOOSE' }
    | { type: 'CANCEL_CHOICE' }
    | { type: 'DELETE' }
    | { type: 'CONFIRM' }
    | { type: 'CANCEL_DELETE' }
    | { type: 'SUCCEED' }
    | { type: 'FAIL' }
    | { type: 'DISMISS' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'templateActionsModel',
    initial: 'idle',
    states: {
      idle: {
        on: { UNLINK: 'unlinking', RELINK: 'listing', DELETE: 'confirming', DISMISS: 'idle' },
      },
      unlinking: { on: { SUCCEED: 'idle', FAIL: 'idle' } },
      listing: { on: { SUCCEED: 'choosing', FAIL: 'idle' } },
      choosing: { on: { CHOOSE: 'relinking', CANCEL_CHOICE: 'idle' } },
      relinking: { on: { SUCCEED: 'idle', FAIL: 'idle' } },
      confirming: { on: { CONFIRM: 'deleting', CANCEL_DELETE: 'idle' } },
      deleting: { on: { SUCCEED: 'deleted', FAIL: 'idle' } },
      deleted: {},
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, templateActionsMachine, {
        states: {
          idle: 'idle',
          unlinking: 'unlinking',
          listing: 'loadingSiblings',
          choosing: 'choosingSibling',
          relinking: 'relinking',
          confirming: 'confirmingDelete',
          deleting: 'deleting',
          deleted: 'deleted',
        },
        events: {
          UNLINK: 'template.unlinkRequested',
          RELINK: 'template.relinkRequested',
          CHOOSE: 'template.siblingChosen',
          CANCEL_CHOICE: 'template.relinkCancelled',
          DELETE: 'template.deleteRequested',
          CONFIRM: 'template.deleteConfirmed',
          CANCEL_DELETE: 'template.deleteCancelled',
          SUCCEED: [
            'xstate.done.actor.unlinkTemplate',
            'xstate.done.actor.listSiblings',
            'xstate.done.actor.relinkTemplate',
            'xstate.done.actor.deleteTemplate',
          ],
          FAIL: [
            'xstate.error.actor.unlinkTemplate',
            'xstate.error.actor.listSiblings',
            'xstate.error.actor.relinkTemplate',
            'xstate.error.actor.deleteTemplate',
          ],
          DISMISS: 'template.errorDismissed',
        },
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  /** What the author sees in each model state, and what the editor has been told. */
  const SEEN: Record<
    string,
    { idle: boolean; busy: boolean; choosing?: boolean; confirming?: boolean }
  > = {
    idle: { idle: true, busy: false },
    unlinking: { idle: false, busy: true },
    listing: { idle: false, busy: true },
    choosing: { idle: false, busy: false, choosing: true },
    relinking: { idle: false, busy: true },
    confirming: { idle: false, busy: false, confirming: true },
    deleting: { idle: false, busy: true },
    deleted: { idle: false, busy: false },
  };

  for (const path of paths) {
    it(path.description, async () => {
      const a = startActions();
      let errors = 0;
      const reports: string[] = [];
      let previous = 'idle';
      await path.test({
        states: Object.fromEntries(
          Object.entries(SEEN).map(([state, seen]) => [
            state,
            () => {
              const snapshot = a.snapshot();
              expect(selectAreActionsIdle(snapshot)).toBe(seen.idle);
              expect(selectIsTemplateBusy(snapshot)).toBe(seen.busy);
              expect(selectIsChoosingSibling(snapshot)).toBe(seen.choosing ?? false);
              expect(selectIsConfirmingTemplateDelete(snapshot)).toBe(seen.confirming ?? false);
              expect(selectTemplateErrors(snapshot)).toHaveLength(errors);
              expect(a.reports.map((r) => r.type)).toEqual(reports);
              previous = state;
            },
          ]),
        ),
        events: {
          UNLINK: () => a.send({ type: 'template.unlinkRequested' }),
          RELINK: () => a.send({ type: 'template.relinkRequested' }),
          CHOOSE: () => a.send({ type: 'template.siblingChosen', parentId: 't-9' }),
          CANCEL_CHOICE: () => a.send({ type: 'template.relinkCancelled' }),
          DELETE: () => a.send({ type: 'template.deleteRequested' }),
          CONFIRM: () => a.send({ type: 'template.deleteConfirmed' }),
          CANCEL_DELETE: () => a.send({ type: 'template.deleteCancelled' }),
          SUCCEED: async () => {
            if (previous === 'unlinking' || previous === 'relinking') {
              reports.push('template.linkChanged');
            }
            if (previous === 'deleting') reports.push('template.deleted');
            await a.settle('ok');
          },
          FAIL: async () => {
            errors += 1;
            await a.settle({ reject: { message: 'ResourceNotFound' } });
          },
          DISMISS: () => {
            errors = Math.max(0, errors - 1);
            a.send({ type: 'template.errorDismissed', index: 0 });
          },
        },
      });
    });
  }
});
