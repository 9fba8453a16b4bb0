import { MAX_REPLICAS, ONE_PER_PLAYER, TEMPLATE_LIMITS } from '../../src/domain/templateFields';
import { realClock, type Clock } from '../clock';
import type { Repositories } from '../store/repositories';
import type { NamedTemplate } from '../store/repositories/templates';
import type { TemplateTable } from '../store/schema';
import { hasAnyToken } from './dto';
import { DomainError, forbidden } from './errors';
import {
  actorRef,
  flag,
  integer,
  normalizeTerm,
  optionalText,
  paging,
  requiredText,
  silentPublisher,
  unknownArgument,
  type Publisher,
} from './fields';
import { asId, newId } from './ids';
import { uniqueName } from './naming';
import { createTemplateAdmin, templateLookup } from './templateAdmin';
import { ALL_AVAILABLE, type TemplateAvailabilities } from './templateAvailability';
import { defaultDetail, localizeDiskPaths, parseDetail, serializeDetail } from './templateDetail';
import { templateDto, templateGroup, templateSummaryDto, type TemplateDto } from './templateViews';
import type { Actor } from './actor';

// Templates (wire reference §1.3, §2.4, §4.8): stock templates (no workspace) that admins publish,
// and workspace templates that are linked to a parent (sharing its disks) or unlinked (with their
// own copy of the detail). The rules of the template routes live here and, for the
// administrators' routes, in templateAdmin.ts; the detail's format is templateDetail.ts's and the
// DTOs are templateViews.ts's.

// What other modules import from here, wherever it is written.
export * from './templateDetail';
export * from './templateViews';
export type { ChangedTemplateDetail, NewTemplateDetail, TemplateClone } from './templateAdmin';

// ---------------------------------------------------------------------------------------------
// Bodies and queries, as received (property names already camelCase).

export interface TemplateSearch {
  term?: string;
  skip?: number;
  take?: number;
  filter?: string[];
  pid?: string;
}

export interface ChangedTemplate {
  id?: unknown;
  name?: unknown;
  description?: unknown;
  networks?: unknown;
  iso?: unknown;
  isHidden?: unknown;
  guestinfo?: unknown;
  replicas?: unknown;
  variant?: unknown;
}

export interface TemplateLink {
  templateId?: unknown;
  workspaceId?: unknown;
}

export interface TemplateReLink extends TemplateLink {
  parentId?: unknown;
}

/** The seam where the machine issue removes a deleted template's VM (and, if unlinked, disks). */
export interface TemplateMachines {
  templateDeleted(template: TemplateTable): Promise<void>;
}

export const NO_TEMPLATE_MACHINES: TemplateMachines = { templateDeleted: async () => {} };

export interface TemplateServiceOptions {
  publisher?: Publisher;
  machines?: TemplateMachines;
  /** The server's time: when templates are made. */
  clock?: Clock;
  /** Why templates cannot run on the hypervisor, for the lists templates are chosen from. */
  availability?: TemplateAvailabilities;
}

/**
 * Whether a template may be pointed at (relinked to) a sibling, or be shown it: a sibling of the
 * same workspace, a stock revision (no workspace: administrators keep those), or a published one
 * (admins: any). Stricter than the reference, where every child of a stock template, whatever
 * its workspace, is a sibling: relinking to another workspace's revision would deploy that
 * workspace's disks and reveal its unpublished work.
 */
export function mayFollow(
  actor: Actor,
  template: Pick<TemplateTable, 'workspaceId'>,
  sibling: Pick<TemplateTable, 'workspaceId' | 'isPublished'>,
): boolean {
  return (
    actor.isAdmin ||
    !!sibling.isPublished ||
    sibling.workspaceId === null ||
    sibling.workspaceId === template.workspaceId
  );
}

export function createTemplateService(
  repos: Pick<Repositories, 'templates' | 'workspaces'>,
  options: TemplateServiceOptions = {},
) {
  const publisher = options.publisher ?? silentPublisher;
  const machines = options.machines ?? NO_TEMPLATE_MACHINES;
  const clock = options.clock ?? realClock;
  const { templates, workspaces } = repos;
  const { find, existing } = templateLookup(templates);

  async function workspaceOf(id: unknown, argument: string) {
    const key = asId(id);
    const ws = key ? await workspaces.find(key) : undefined;
    if (!ws) throw unknownArgument(argument);
    return ws;
  }

  async function dtoOf(id: string): Promise<TemplateDto> {
    const row = await templates.findNamed(id);
    if (!row) throw new Error(`template ${id} is gone`);
    const { parentName, workspaceName, ...t } = row;
    return templateDto(t, parentName, workspaceName);
  }

  /** tpl.CanEdit: an administrator, or any worker of the template's workspace. */
  async function canEdit(actor: Actor, template: TemplateTable): Promise<boolean> {
    if (actor.isAdmin) return true;
    if (!template.workspaceId) return false;
    return workspaces.isWorker(template.workspaceId, actor.id);
  }

  /** ws.CanEdit: an administrator, or a worker of the workspace with the Editor flag. */
  async function canEditWorkspace(actor: Actor, workspaceId: string): Promise<boolean> {
    if (actor.isAdmin) return true;
    return (((await workspaces.permissionOf(workspaceId, actor.id)) ?? 0) & 1) !== 0;
  }

  function publish(actor: Actor, action: string, model: TemplateDto) {
    publisher.publish(templateGroup(model), 'TemplateEvent', {
      action,
      actor: actorRef(actor),
      model,
    });
  }

  const availability = options.availability ?? ALL_AVAILABLE;
  /** Summaries; one the hypervisor cannot run says why in `unavailable` (ours, not the wire's). */
  const summaries = async (rows: NamedTemplate[]) => {
    const unavailable = await availability(rows);
    return rows.map((row) => {
      const why = unavailable.get(row.id);
      const summary = templateSummaryDto(row);
      return why === undefined ? summary : { ...summary, unavailable: why };
    });
  };

  return {
    canEdit,

    /**
     * GET /api/templates: non-admins only ever see published templates; admins see all unless
     * they ask for `published`, and may list the children of `pid`. Ordered by name.
     */
    async list(actor: Actor, search: TemplateSearch) {
      const { skip, take } = paging(search);
      const term = normalizeTerm(search.term);
      const filters = (search.filter ?? []).map((f) => f.toLowerCase());
      const rows = await templates.search({
        term,
        parentId: actor.isAdmin && search.pid ? search.pid : undefined,
        publishedOnly: !actor.isAdmin || filters.includes('published'),
        skip,
        take,
      });
      return summaries(rows);
    },

    async load(actor: Actor, id: unknown): Promise<TemplateDto> {
      const template = await existing(id, 'id');
      if (!(await canEdit(actor, template))) throw forbidden();
      return dtoOf(template.id);
    },

    /**
     * PUT /api/template; TEMPLATE.UPDATED. The name is required; other fields left out of the
     * body keep their values (null clears), so scripts may send only what changes.
     */
    async update(actor: Actor, model: ChangedTemplate): Promise<TemplateDto> {
      const template = await existing(model.id, 'id');
      const changes: Partial<TemplateTable> = {
        name: requiredText(model.name, TEMPLATE_LIMITS.name),
      };
      const texts = ['description', 'networks', 'iso', 'guestinfo'] as const;
      for (const field of texts) {
        if (model[field] !== undefined) {
          changes[field] = optionalText(model[field], TEMPLATE_LIMITS[field], field);
        }
      }
      if (model.isHidden !== undefined) changes.isHidden = flag(model.isHidden, 'isHidden');
      if (model.replicas !== undefined) {
        changes.replicas = integer(model.replicas, 'replicas', {
          min: ONE_PER_PLAYER,
          max: MAX_REPLICAS,
        });
      }
      if (model.variant !== undefined) {
        changes.variant = integer(model.variant, 'variant', { min: 0 });
      }
      if (!(await canEdit(actor, template))) throw forbidden();
      await templates.update(template.id, changes);
      const dto = await dtoOf(template.id);
      publish(actor, 'TEMPLATE.UPDATED', dto);
      return dto;
    },

    /** DELETE /api/template/{id}: refused while another template has it as parent. */
    async remove(actor: Actor, id: unknown): Promise<TemplateDto> {
      const template = await existing(id, 'id');
      if (!(await canEdit(actor, template))) throw forbidden();
      if (await templates.hasChildren(template.id)) throw new DomainError('TemplateHasDescendents');
      const dto = await dtoOf(template.id);
      await machines.templateDeleted(template);
      await templates.remove(template.id);
      publish(actor, 'TEMPLATE.REMOVED', dto);
      return dto;
    },

    /**
     * POST /api/template: links a published (or audience-matching) template into a workspace.
     * Quirk fixed: the reference does not check that the actor may edit the target workspace, so
     * anyone could add templates to anyone's workspace; we require ws.CanEdit.
     */
    async link(actor: Actor, model: TemplateLink): Promise<TemplateDto> {
      const source = await existing(model.templateId, 'templateId');
      const workspace = await workspaceOf(model.workspaceId, 'workspaceId');
      if (!actor.isAdmin) {
        if (!(await canEditWorkspace(actor, workspace.id))) throw forbidden();
        const scope = `${workspace.templateScope} ${actor.scope}`;
        if (!source.isPublished && !hasAnyToken(source.audience, scope)) throw forbidden();
      }
      if (!actor.isCreator) {
        const count = await templates.countInWorkspace(workspace.id);
        if (count >= workspace.templateLimit) throw new DomainError('TemplateLimitReached');
      }
      const row: TemplateTable = {
        id: newId(),
        // The source's name, numbered only when the workspace already has it: machines are
        // named after their templates, and players read those names.
        name: uniqueName(source.name, await templates.namesInWorkspace(workspace.id)),
        description: source.description,
        audience: '',
        iso: source.iso,
        networks: source.networks,
        guestinfo: source.guestinfo,
        isHidden: 0,
        isPublished: 0,
        isLinked: 1,
        detail: null,
        // A linked template has no detail of its own; linking one would leave the new template
        // with no detail to inherit, so it is linked to the same parent instead.
        parentId: source.isLinked && source.parentId ? source.parentId : source.id,
        replicas: 0,
        variant: 0,
        workspaceId: workspace.id,
        whenCreated: clock.now(),
      };
      await templates.insert(row);
      const dto = await dtoOf(row.id);
      publish(actor, 'TEMPLATE.ADDED', dto);
      return dto;
    },

    /**
     * POST /api/template/unlink: the template gets a copy of its parent's detail with its disks
     * moved to its workspace's folder; it must then be initialized before it can deploy.
     */
    async unlink(actor: Actor, model: TemplateLink): Promise<TemplateDto> {
      const template = await existing(model.templateId, 'templateId');
      await workspaceOf(model.workspaceId, 'workspaceId');
      if (!(await canEdit(actor, template))) throw forbidden();
      if (template.isLinked) {
        if (!template.workspaceId) throw new DomainError('InvalidOperation');
        const parent = template.parentId ? await find(template.parentId) : undefined;
        // A linked template whose parent is gone starts again from the default detail.
        const source = parent?.detail ? parseDetail(parent.detail) : defaultDetail(template.name);
        const detail = localizeDiskPaths(
          { ...source, Name: template.name },
          template.workspaceId,
          template.id,
        );
        await templates.update(template.id, { detail: serializeDetail(detail), isLinked: 0 });
      }
      const dto = await dtoOf(template.id);
      publish(actor, 'TEMPLATE.UPDATED', dto);
      return dto;
    },

    /**
     * POST /api/template/relink: points a template at a sibling revision (a template with the
     * same parent), which becomes its parent. Anything else is TemplateNotPublished, as in the
     * reference; unlike the reference, a template without a parent has no siblings, a template
     * is not its own sibling, and a sibling of another workspace must be published (mayFollow).
     */
    async relink(actor: Actor, model: TemplateReLink): Promise<TemplateDto> {
      const template = await existing(model.templateId, 'templateId');
      const parent = await existing(model.parentId, 'parentId');
      if (template.workspaceId === null || template.workspaceId !== model.workspaceId) {
        throw unknownArgument('workspaceId');
      }
      if (!(await canEdit(actor, template))) throw forbidden();
      if (
        !template.parentId ||
        template.parentId !== parent.parentId ||
        template.id === parent.id ||
        !mayFollow(actor, template, parent)
      ) {
        throw new DomainError('TemplateNotPublished');
      }
      await templates.update(template.id, { parentId: parent.id });
      const dto = await dtoOf(template.id);
      publish(actor, 'TEMPLATE.UPDATED', dto);
      return dto;
    },

    /**
     * GET /api/template/{id}/siblings: the other children of the template's parent; with `pub`,
     * only published ones or those whose audience matches the workspace's template scope.
     */
    async siblings(actor: Actor, id: unknown, pub: boolean) {
      const template = await existing(id, 'id');
      if (!(await canEdit(actor, template))) throw forbidden();
      if (!template.parentId) return [];
      let rows = (
        await templates.siblingsOf({ id: template.id, parentId: template.parentId })
      ).filter((r) => mayFollow(actor, template, r));
      if (pub) {
        const ws = template.workspaceId ? await workspaces.find(template.workspaceId) : undefined;
        rows = rows.filter((r) => r.isPublished || hasAnyToken(r.audience, ws?.templateScope));
      }
      return summaries(rows);
    },

    /**
     * GET /api/workspace/{id}/templates: templates whose audience matches the workspace's template
     * scope or the actor's scope, which may be linked into the workspace though unpublished. (The
     * SPA lists these beside the published ones from GET /api/templates?filter=published.)
     */
    async scoped(actor: Actor, workspaceId: unknown) {
      const workspace = await workspaceOf(workspaceId, 'id');
      if (!(await canEditWorkspace(actor, workspace.id))) throw forbidden();
      const scope = `${workspace.templateScope} ${actor.scope}`;
      if (!scope.trim()) return [];
      const rows = await templates.withAudience();
      return summaries(rows.filter((r) => hasAnyToken(r.audience, scope)));
    },

    ...createTemplateAdmin(templates, clock),
  };
}

export type TemplateService = ReturnType<typeof createTemplateService>;
