import { templateDetailProblem } from '../../src/domain/templateDetail';
import { TEMPLATE_LIMITS } from '../../src/domain/templateFields';
import type { Clock } from '../clock';
import type { TemplateRepository } from '../store/repositories/templates';
import type { TemplateTable } from '../store/schema';
import { ValidationFailed } from './errors';
import { flag, invalid, optionalText, requiredText, unknownArgument } from './fields';
import { asId, newId } from './ids';
import { cloneName } from './naming';
import { DETAIL_MAX, normalizeDetail } from './templateDetail';
import { templateDetailDto, type TemplateDetailDto } from './templateViews';

// The administrators' template routes (wire reference §1.3, §4.8): a template's detail (the
// VmTemplate it deploys), new stock templates and new revisions of a template. The routes let
// only administrators in; nothing here checks the actor again.

export interface NewTemplateDetail {
  id?: unknown;
  name?: unknown;
  description?: unknown;
  audience?: unknown;
  networks?: unknown;
  guestinfo?: unknown;
  detail?: unknown;
  isPublished?: unknown;
}

export type ChangedTemplateDetail = NewTemplateDetail;

export interface TemplateClone {
  id?: unknown;
  name?: unknown;
}

/** Template lookups by an id as received (of any type), shared by the template services. */
export function templateLookup(templates: TemplateRepository) {
  async function find(id: unknown): Promise<TemplateTable | undefined> {
    const key = asId(id);
    return key ? templates.find(key) : undefined;
  }

  return {
    find,
    /** The template, or 400 ResourceNotFound naming the argument (before authorization). */
    async existing(id: unknown, argument: string): Promise<TemplateTable> {
      const row = await find(id);
      if (!row) throw unknownArgument(argument);
      return row;
    },
  };
}

/**
 * The detail text of a request, refused with a 400 naming what the deploy could not read (the
 * same rule the admin form checks as it is typed).
 */
function checkedDetail(value: unknown): string {
  const text = optionalText(value, DETAIL_MAX, 'detail');
  // Names the deploy does not read are ignored here, as TopoMojo ignores them; the form flags them.
  const problem = templateDetailProblem(text, 'ignored');
  if (problem) throw new ValidationFailed('detail', problem);
  return text;
}

export function createTemplateAdmin(templates: TemplateRepository, clock: Clock) {
  const { find, existing } = templateLookup(templates);

  return {
    /** GET /api/template-detail/{id} (admin). */
    async loadDetail(id: unknown): Promise<TemplateDetailDto> {
      const template = await existing(id, 'id');
      const parent = template.parentId ? await find(template.parentId) : undefined;
      return templateDetailDto(template, parent ?? null);
    },

    /** POST /api/template-detail (admin): a new stock template. */
    async createDetail(model: NewTemplateDetail): Promise<TemplateDetailDto> {
      let id = newId();
      if (model.id !== undefined && model.id !== null && model.id !== '') {
        if (typeof model.id !== 'string' || !/^[A-Za-z0-9-]{1,36}$/.test(model.id)) {
          throw invalid('id', 'must be at most 36 letters, digits or dashes');
        }
        if (await find(model.id)) throw new ValidationFailed('id', 'ResourceAlreadyExists');
        id = model.id;
      }
      const name = requiredText(model.name, TEMPLATE_LIMITS.name);
      const row: TemplateTable = {
        id,
        name,
        description: optionalText(model.description, TEMPLATE_LIMITS.description, 'description'),
        audience: optionalText(model.audience, TEMPLATE_LIMITS.audience, 'audience'),
        iso: '',
        networks: optionalText(model.networks, TEMPLATE_LIMITS.networks, 'networks'),
        guestinfo: optionalText(model.guestinfo, TEMPLATE_LIMITS.guestinfo, 'guestinfo'),
        isHidden: 0,
        isPublished: flag(model.isPublished, 'isPublished'),
        isLinked: 0,
        detail: normalizeDetail(checkedDetail(model.detail), name),
        parentId: null,
        replicas: 0,
        variant: 0,
        workspaceId: null,
        whenCreated: clock.now(),
      };
      await templates.insert(row);
      return templateDetailDto(row);
    },

    /**
     * PUT /api/template-detail (admin). As PUT /api/template, fields left out keep their values.
     * An empty detail is cleared on a linked template (which inherits its parent's) and reset to
     * the default otherwise.
     */
    async configureDetail(model: ChangedTemplateDetail): Promise<TemplateDetailDto> {
      const template = await existing(model.id, 'id');
      const name = requiredText(model.name, TEMPLATE_LIMITS.name);
      const changes: Partial<TemplateTable> = { name };
      const texts = ['description', 'audience', 'networks', 'guestinfo'] as const;
      for (const field of texts) {
        if (model[field] !== undefined) {
          changes[field] = optionalText(model[field], TEMPLATE_LIMITS[field], field);
        }
      }
      if (model.isPublished !== undefined) {
        changes.isPublished = flag(model.isPublished, 'isPublished');
      }
      if (model.detail !== undefined) {
        const text = checkedDetail(model.detail);
        if (text.trim()) changes.detail = normalizeDetail(text, name);
        else changes.detail = template.isLinked ? null : normalizeDetail(null, name);
      }
      await templates.update(template.id, changes);
      const parent = template.parentId ? await find(template.parentId) : undefined;
      return templateDetailDto({ ...template, ...changes }, parent ?? null);
    },

    /**
     * POST /api/template/clone (admin): a new revision of a template beside it, unlinked and
     * unpublished, with the source as parent. Its disks are not localized (wire reference §4.8).
     */
    async clone(model: TemplateClone): Promise<TemplateDetailDto> {
      const source = await existing(model.id, 'id');
      const name =
        model.name === undefined || model.name === null || model.name === ''
          ? cloneName(source.name)
          : requiredText(model.name, TEMPLATE_LIMITS.name);
      // A linked source has no detail of its own: the clone gets the one it inherits.
      const parent = source.parentId ? await find(source.parentId) : undefined;
      const row: TemplateTable = {
        ...source,
        id: newId(),
        name,
        parentId: source.id,
        isLinked: 0,
        isPublished: 0,
        detail: source.detail ?? parent?.detail ?? normalizeDetail(null, name),
        whenCreated: clock.now(),
      };
      await templates.insert(row);
      return templateDetailDto(row, source);
    },
  };
}

export type TemplateAdmin = ReturnType<typeof createTemplateAdmin>;
