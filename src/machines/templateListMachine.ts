import {
  assertEvent,
  assign,
  enqueueActions,
  fromEventObservable,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { Template } from '../api/template';
import { gamespaceCleanupMachine } from './gamespaceCleanupMachine';
import {
  templateEditorMachine,
  type TemplateEditorActorRef,
  type TemplateEditorReport,
} from './templateEditorMachine';
import { templateSelectorMachine, type TemplateSelectorReport } from './templateSelectorMachine';

/** The hub's template events for the workspace (TEMPLATE.ADDED, UPDATED, REMOVED). */
export type TemplateListHubEvent =
  | { type: 'template.added'; template: Template }
  | { type: 'template.updated'; template: Template }
  | { type: 'template.removed'; templateId: string };

export type TemplateListEvent =
  TemplateListHubEvent | TemplateSelectorReport | TemplateEditorReport;

export interface TemplateListInput {
  workspaceId: string;
  templates: readonly Template[];
  /** The workspace's gamespaces under way when it loaded (its stats); none when missing. */
  activeGamespaceCount?: number;
}

export interface TemplateListContext {
  workspaceId: string;
  /** The templates as last known, in the editors' order: what the topology diagram draws. */
  templates: Template[];
  activeGamespaceCount: number;
  /** One editor per template, in the order shown; its id is `template:{templateId}`. */
  editors: TemplateEditorActorRef[];
}

/** Templates are listed by name, case ignored, when the workspace loads (spec §3 Workspace). */
export const sortTemplates = (templates: readonly Template[]): Template[] =>
  [...templates].sort((a, b) =>
    (a.name ?? '').localeCompare(b.name ?? '', undefined, { sensitivity: 'base' }),
  );

const editorId = (templateId: string) => `template:${templateId}`;

const notProvided = (name: string): Error =>
  new Error(`templateListMachine: '${name}' is provided by the app (src/app)`);

/**
 * The Templates tab (spec §2): an editor per template of the workspace (sorted by name on load;
 * templates added later come last, so that an editor does not move while its name is typed), the
 * template selector and the gamespace warning. Templates come and go with the selector's links,
 * the editors' deletes and the hub's TEMPLATE.* events; the same template announced twice (the
 * link's answer and the hub's echo) gets one editor.
 */
export const templateListMachine = setup({
  types: {
    input: {} as TemplateListInput,
    context: {} as TemplateListContext,
    events: {} as TemplateListEvent,
  },
  actors: {
    /** TEMPLATE.* hub events of the workspace, validated; provided by the app. */
    templateEvents: fromEventObservable<TemplateListHubEvent, { workspaceId: string }>(() => {
      throw notProvided('templateEvents');
    }),
    templateEditor: templateEditorMachine,
    templateSelector: templateSelectorMachine,
    gamespaceCleanup: gamespaceCleanupMachine,
  },
  actions: {
    /** A new template gets an editor at the end; a known one changes nothing. */
    addEditor: assign({
      editors: ({ context, event, spawn, self }) => {
        assertEvent(event, ['template.added', 'template.linked']);
        const { template } = event;
        if (
          template === undefined ||
          template.workspaceId !== context.workspaceId ||
          context.editors.some((editor) => editor.id === editorId(template.id))
        ) {
          return context.editors;
        }
        const editor = spawn('templateEditor', {
          id: editorId(template.id),
          input: {
            template,
            workspaceId: context.workspaceId,
            reportTo: self,
          },
        });
        return [...context.editors, editor];
      },
    }),
    /** The diagram follows the templates that come, change and go. */
    keepTemplate: assign({
      templates: ({ context, event }) => {
        assertEvent(event, ['template.added', 'template.linked', 'template.changed']);
        const { template } = event;
        if (template === undefined || template.workspaceId !== context.workspaceId) {
          return context.templates;
        }
        return context.templates.some((t) => t.id === template.id)
          ? context.templates.map((t) => (t.id === template.id ? template : t))
          : [...context.templates, template];
      },
    }),
    forgetTemplate: assign({
      templates: ({ context, event }) => {
        assertEvent(event, ['template.removed', 'template.deleted']);
        return context.templates.filter((t) => t.id !== event.templateId);
      },
    }),
    forwardUpdate: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'template.updated');
      if (event.template === undefined) return;
      const editor = context.editors.find((e) => e.id === editorId(event.template.id));
      if (editor)
        enqueue.sendTo(editor, { type: 'template.updatedRemotely', template: event.template });
    }),
    removeEditor: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, ['template.removed', 'template.deleted']);
      const editor = context.editors.find((e) => e.id === editorId(event.templateId));
      if (editor === undefined) return;
      enqueue.stopChild(editor);
      enqueue.assign({ editors: context.editors.filter((e) => e !== editor) });
    }),
  },
}).createMachine({
  id: 'templateList',
  description:
    "The Templates tab: an editor per template (sorted by name on load), the selector and the gamespace warning; the selector's links, the editors' deletes and the hub's TEMPLATE.* events add and remove editors.",
  context: ({ input, spawn, self }) => ({
    workspaceId: input.workspaceId,
    activeGamespaceCount: input.activeGamespaceCount ?? 0,
    templates: sortTemplates(input.templates),
    editors: sortTemplates(input.templates).map((template) =>
      spawn('templateEditor', {
        id: editorId(template.id),
        input: {
          template,
          workspaceId: input.workspaceId,
          reportTo: self,
        },
      }),
    ),
  }),
  invoke: [
    {
      src: 'templateEvents',
      input: ({ context }) => ({ workspaceId: context.workspaceId }),
    },
    {
      id: 'selector',
      src: 'templateSelector',
      input: ({ context, self }) => ({ workspaceId: context.workspaceId, reportTo: self }),
    },
    {
      id: 'gamespaceCleanup',
      src: 'gamespaceCleanup',
      input: ({ context }) => ({
        workspaceId: context.workspaceId,
        activeGamespaceCount: context.activeGamespaceCount,
      }),
    },
  ],
  on: {
    'template.added': { actions: ['addEditor', 'keepTemplate'] },
    'template.linked': { actions: ['addEditor', 'keepTemplate'] },
    'template.updated': { actions: 'forwardUpdate' },
    'template.changed': { actions: 'keepTemplate' },
    'template.removed': { actions: ['removeEditor', 'forgetTemplate'] },
    'template.deleted': { actions: ['removeEditor', 'forgetTemplate'] },
  },
});

export type TemplateListActorRef = ActorRefFrom<typeof templateListMachine>;
export type TemplateListSnapshot = SnapshotFrom<typeof templateListMachine>;
