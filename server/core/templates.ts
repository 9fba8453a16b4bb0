import type { Db } from '../store/db';
import type { TemplateTable } from '../store/schema';
import { hasAnyToken, isoDate } from './dto';
import { DomainError, forbidden, ValidationFailed } from './errors';
import {
  actorRef,
  contains,
  flag,
  integer,
  invalid,
  normalizeTerm,
  optionalText,
  paging,
  requiredText,
  silentPublisher,
  startsWith,
  unknownArgument,
  type Publisher,
} from './fields';
import { EMPTY_GUID, newId } from './ids';
import { cloneName, linkedName, linkSuffix, NAME_MAX } from './naming';
import type { Actor } from './users';

// Templates (wire reference §1.3, §2.4, §4.8): stock templates (no workspace) that admins publish,
// and workspace templates that are linked to a parent (sharing its disks) or unlinked (with their
// own copy of the detail). Every rule of the template routes lives here.

// ---------------------------------------------------------------------------------------------
// The detail: a VmTemplate as PascalCase JSON text, written indented with every property, read
// case-insensitively (as System.Text.Json does in the reference).

export interface VmNet {
  Id: number;
  Net: string | null;
  Key: string | null;
  Type: string | null;
  Mac: string | null;
  Ip: string | null;
  Vlan: number;
}

export interface VmDisk {
  Id: number;
  Path: string | null;
  Source: string | null;
  Controller: string | null;
  /** GB. */
  Size: number;
  Status: number;
}

export interface VmKeyValue {
  Key: string | null;
  Value: string | null;
}

export interface VmTemplate {
  Id: string | null;
  Name: string | null;
  TopoId: string | null;
  /** "{sockets}x{cores}". */
  Cpu: string | null;
  Guest: string | null;
  Source: string | null;
  Iso: string | null;
  Floppy: string | null;
  Version: string | null;
  IsolationTag: string | null;
  HostAffinity: boolean;
  UseUplinkSwitch: boolean;
  /** GB. */
  Ram: number;
  VideoRam: number;
  Adapters: number;
  Delay: number;
  AutoStart: boolean;
  /** Proxmox: the template VM to clone from. */
  Template: string | null;
  ParentTemplate: string | null;
  Eth: VmNet[];
  Disks: VmDisk[];
  GuestSettings: VmKeyValue[] | null;
}

/** The largest detail accepted (the reference stores 4096 characters; this leaves room). */
export const DETAIL_MAX = 65_536;

type Loose = Record<string, unknown>;

function lowerKeys(value: unknown): Loose {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toLowerCase(), v]));
}

const str = (v: unknown): string | null =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;

const int = (v: unknown, fallback = 0): number => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? Math.trunc(n) : fallback;
};

const bool = (v: unknown, fallback: boolean): boolean =>
  typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : fallback;

const list = <T>(v: unknown, item: (x: Loose) => T): T[] =>
  Array.isArray(v) ? v.map((x) => item(lowerKeys(x))) : [];

const vmNet = (o: Loose): VmNet => ({
  Id: int(o.id),
  Net: str(o.net),
  Key: str(o.key),
  Type: str(o.type),
  Mac: str(o.mac),
  Ip: str(o.ip),
  Vlan: int(o.vlan),
});

const vmDisk = (o: Loose): VmDisk => ({
  Id: int(o.id),
  Path: str(o.path),
  Source: str(o.source),
  Controller: str(o.controller),
  Size: int(o.size),
  Status: int(o.status),
});

const vmKeyValue = (o: Loose): VmKeyValue => ({ Key: str(o.key), Value: str(o.value) });

/** Any object to a complete VmTemplate, property names matched case-insensitively. */
export function toVmTemplate(value: unknown): VmTemplate {
  const o = lowerKeys(value);
  return {
    Id: str(o.id),
    Name: str(o.name),
    TopoId: str(o.topoid),
    Cpu: str(o.cpu),
    Guest: str(o.guest),
    Source: str(o.source),
    Iso: str(o.iso),
    Floppy: str(o.floppy),
    Version: str(o.version),
    IsolationTag: str(o.isolationtag),
    HostAffinity: bool(o.hostaffinity, false),
    UseUplinkSwitch: bool(o.useuplinkswitch, false),
    Ram: int(o.ram),
    VideoRam: int(o.videoram),
    Adapters: int(o.adapters),
    Delay: int(o.delay),
    AutoStart: bool(o.autostart, true),
    Template: str(o.template),
    ParentTemplate: str(o.parenttemplate),
    Eth: list(o.eth, vmNet),
    Disks: list(o.disks, vmDisk),
    GuestSettings: Array.isArray(o.guestsettings) ? list(o.guestsettings, vmKeyValue) : null,
  };
}

export function parseDetail(text: string): VmTemplate {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('detail', 'is not VmTemplate JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid('detail', 'is not VmTemplate JSON');
  }
  return toVmTemplate(value);
}

export const serializeDetail = (vm: VmTemplate): string => JSON.stringify(vm, null, 2);

/** The reference's disk name for a new template: non-word characters become '-', lowercase. */
export function diskName(name: string): string {
  const slugged = name
    .replace(/[^\p{L}\p{N}_]/gu, '-')
    .replaceAll('--', '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
  return slugged || 'placeholder';
}

/** The detail of a template created without one (wire reference §2.4). */
export function defaultDetail(name: string): VmTemplate {
  return toVmTemplate({
    Ram: 4,
    VideoRam: 0,
    Cpu: '1x2',
    Adapters: 1,
    Eth: [{ Net: 'lan', Type: 'e1000' }],
    Disks: [
      {
        Path: `[ds] ${EMPTY_GUID}/${diskName(name)}.vmdk`,
        Source: '',
        Controller: 'lsilogic',
        Size: 10,
      },
    ],
  });
}

/** Detail text as stored: the given JSON normalized, or the default detail when empty. */
export function normalizeDetail(text: string | null | undefined, name: string): string {
  return serializeDetail(text && text.trim() ? parseDetail(text) : defaultDetail(name));
}

/**
 * Gives a template its own disks in its workspace's folder: every disk not already there gets
 * `source` = its old path and `path` = `[ds] {workspaceId}/{templateId}_{i}.vmdk`. The hypervisor
 * copies `source` to `path` when the template is initialized. For Proxmox, the template VM
 * becomes the parent and the template id the new template VM.
 */
export function localizeDiskPaths(
  vm: VmTemplate,
  workspaceId: string,
  templateId: string,
): VmTemplate {
  if (!workspaceId || !templateId) throw new DomainError('InvalidOperation');
  const folder = `[ds] ${workspaceId}/${templateId}`;
  const disks = vm.Disks.map((disk, i) =>
    disk.Path?.startsWith(folder)
      ? disk
      : { ...disk, Source: disk.Path, Path: `${folder}_${i}.vmdk` },
  );
  const proxmox = vm.Template ? { ParentTemplate: vm.Template, Template: templateId } : {};
  return { ...vm, ...proxmox, Disks: disks };
}

// ---------------------------------------------------------------------------------------------
// DTOs (wire reference §2.4).

export function templateDto(
  t: TemplateTable,
  parentName: string | null,
  workspaceName: string | null,
) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    audience: t.audience,
    networks: t.networks,
    iso: t.iso,
    guestinfo: t.guestinfo,
    isHidden: !!t.isHidden,
    isLinked: !!t.isLinked,
    parentId: t.parentId,
    parentName,
    replicas: t.replicas,
    variant: t.variant,
    workspaceId: t.workspaceId,
    workspaceName,
  };
}

export type TemplateDto = ReturnType<typeof templateDto>;

/** A template row with the names of its parent and workspace. */
export interface NamedTemplate extends TemplateTable {
  parentName: string | null;
  workspaceName: string | null;
}

export function templateSummaryDto(t: NamedTemplate) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    audience: t.audience,
    workspaceId: t.workspaceId,
    workspaceName: t.workspaceName,
    parentId: t.parentId,
    parentName: t.parentName,
    isLinked: !!t.isLinked,
    isPublished: !!t.isPublished,
    whenCreated: isoDate(t.whenCreated),
  };
}

export interface TemplateDetailDto {
  id: string;
  name: string;
  description: string;
  audience: string;
  networks: string;
  guestinfo: string;
  detail: string | null;
  isPublished: boolean;
  isLinked: boolean;
  parent: TemplateDetailDto | null;
}

export function templateDetailDto(
  t: TemplateTable,
  parent: TemplateTable | null = null,
): TemplateDetailDto {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    audience: t.audience,
    networks: t.networks,
    guestinfo: t.guestinfo,
    detail: t.detail,
    isPublished: !!t.isPublished,
    isLinked: !!t.isLinked,
    parent: parent ? templateDetailDto(parent) : null,
  };
}

/** Hub events about a template go to its workspace, or to the all-zero id for stock ones. */
export const templateGroup = (t: { workspaceId: string | null }): string =>
  t.workspaceId ?? EMPTY_GUID;

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

/** Field limits (wire reference §6; product spec §9). */
export const TEMPLATE_LIMITS = {
  name: NAME_MAX,
  description: 255,
  audience: 64,
  networks: 64,
  guestinfo: 1024,
  iso: 1024,
} as const;

/** The most copies of one template a gamespace deploys (wire reference §4.5); -1 = per player. */
export const MAX_REPLICAS = 5;

/** The seam where the machine issue removes a deleted template's VM (and, if unlinked, disks). */
export interface TemplateMachines {
  templateDeleted(template: TemplateTable): Promise<void>;
}

export const NO_TEMPLATE_MACHINES: TemplateMachines = { templateDeleted: async () => {} };

export interface TemplateServiceOptions {
  publisher?: Publisher;
  machines?: TemplateMachines;
  /** Source of the link suffix (tests make it deterministic). */
  random?: () => number;
}

const asId = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= 64 ? value : null;

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

export function createTemplateService(db: Db, options: TemplateServiceOptions = {}) {
  const publisher = options.publisher ?? silentPublisher;
  const machines = options.machines ?? NO_TEMPLATE_MACHINES;
  const random = options.random ?? Math.random;

  const named = () =>
    db
      .selectFrom('templates as t')
      .leftJoin('templates as p', 'p.id', 't.parentId')
      .leftJoin('workspaces as w', 'w.id', 't.workspaceId')
      .selectAll('t')
      .select(['p.name as parentName', 'w.name as workspaceName']);

  async function find(id: unknown): Promise<TemplateTable | undefined> {
    const key = asId(id);
    if (!key) return undefined;
    return db.selectFrom('templates').selectAll().where('id', '=', key).executeTakeFirst();
  }

  /** The template, or 400 ResourceNotFound naming the argument (before authorization). */
  async function existing(id: unknown, argument: string): Promise<TemplateTable> {
    const row = await find(id);
    if (!row) throw unknownArgument(argument);
    return row;
  }

  async function workspaceOf(id: unknown, argument: string) {
    const key = asId(id);
    const ws = key
      ? await db
          .selectFrom('workspaces')
          .select(['id', 'name', 'templateScope', 'templateLimit'])
          .where('id', '=', key)
          .executeTakeFirst()
      : undefined;
    if (!ws) throw unknownArgument(argument);
    return ws;
  }

  async function dtoOf(id: string): Promise<TemplateDto> {
    const row = await named().where('t.id', '=', id).executeTakeFirstOrThrow();
    const { parentName, workspaceName, ...t } = row;
    return templateDto(t, parentName ?? null, workspaceName ?? null);
  }

  /** tpl.CanEdit: an administrator, or any worker of the template's workspace. */
  async function canEdit(actor: Actor, template: TemplateTable): Promise<boolean> {
    if (actor.isAdmin) return true;
    if (!template.workspaceId) return false;
    const worker = await db
      .selectFrom('workers')
      .select('permission')
      .where('workspaceId', '=', template.workspaceId)
      .where('subjectId', '=', actor.id)
      .executeTakeFirst();
    return !!worker;
  }

  /** ws.CanEdit: an administrator, or a worker of the workspace with the Editor flag. */
  async function canEditWorkspace(actor: Actor, workspaceId: string): Promise<boolean> {
    if (actor.isAdmin) return true;
    const worker = await db
      .selectFrom('workers')
      .select('permission')
      .where('workspaceId', '=', workspaceId)
      .where('subjectId', '=', actor.id)
      .executeTakeFirst();
    return ((worker?.permission ?? 0) & 1) !== 0;
  }

  function publish(actor: Actor, action: string, model: TemplateDto) {
    publisher.publish(templateGroup(model), 'TemplateEvent', {
      action,
      actor: actorRef(actor),
      model,
    });
  }

  const summaries = (rows: NamedTemplate[]) =>
    rows.map((r) =>
      templateSummaryDto({
        ...r,
        parentName: r.parentName ?? null,
        workspaceName: r.workspaceName ?? null,
      }),
    );

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
      let q = named();
      if (term) {
        q = q.where((eb) =>
          eb.or([
            contains('t.name', term),
            startsWith('t.id', term),
            startsWith('t.workspaceId', term),
            contains('t.audience', term),
            startsWith('w.name', term),
          ]),
        );
      }
      if (actor.isAdmin && search.pid) q = q.where('t.parentId', '=', search.pid);
      if (!actor.isAdmin || filters.includes('published')) q = q.where('t.isPublished', '=', 1);
      const rows = await q.orderBy('t.name').orderBy('t.id').limit(take).offset(skip).execute();
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
        changes.replicas = integer(model.replicas, 'replicas', { min: -1, max: MAX_REPLICAS });
      }
      if (model.variant !== undefined) {
        changes.variant = integer(model.variant, 'variant', { min: 0 });
      }
      if (!(await canEdit(actor, template))) throw forbidden();
      await db.updateTable('templates').set(changes).where('id', '=', template.id).execute();
      const dto = await dtoOf(template.id);
      publish(actor, 'TEMPLATE.UPDATED', dto);
      return dto;
    },

    /** DELETE /api/template/{id}: refused while another template has it as parent. */
    async remove(actor: Actor, id: unknown): Promise<TemplateDto> {
      const template = await existing(id, 'id');
      if (!(await canEdit(actor, template))) throw forbidden();
      const child = await db
        .selectFrom('templates')
        .select('id')
        .where('parentId', '=', template.id)
        .executeTakeFirst();
      if (child) throw new DomainError('TemplateHasDescendents');
      const dto = await dtoOf(template.id);
      await machines.templateDeleted(template);
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('templateFavorites').where('targetId', '=', template.id).execute();
        await tx.deleteFrom('templates').where('id', '=', template.id).execute();
      });
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
        const { n } = await db
          .selectFrom('templates')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('workspaceId', '=', workspace.id)
          .executeTakeFirstOrThrow();
        if (Number(n) >= workspace.templateLimit) throw new DomainError('TemplateLimitReached');
      }
      const row: TemplateTable = {
        id: newId(),
        name: linkedName(source.name, linkSuffix(random)),
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
        whenCreated: Date.now(),
      };
      await db.insertInto('templates').values(row).execute();
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
        await db
          .updateTable('templates')
          .set({ detail: serializeDetail(detail), isLinked: 0 })
          .where('id', '=', template.id)
          .execute();
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
      await db
        .updateTable('templates')
        .set({ parentId: parent.id })
        .where('id', '=', template.id)
        .execute();
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
        await named()
          .where('t.parentId', '=', template.parentId)
          .where('t.id', '!=', template.id)
          .orderBy('t.name')
          .orderBy('t.id')
          .execute()
      ).filter((r) => mayFollow(actor, template, r));
      if (pub) {
        const ws = template.workspaceId
          ? await db
              .selectFrom('workspaces')
              .select('templateScope')
              .where('id', '=', template.workspaceId)
              .executeTakeFirst()
          : undefined;
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
      const rows = await named()
        .where('t.audience', '!=', '')
        .orderBy('t.name')
        .orderBy('t.id')
        .execute();
      return summaries(rows.filter((r) => hasAnyToken(r.audience, scope)));
    },

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
        detail: normalizeDetail(optionalText(model.detail, DETAIL_MAX, 'detail'), name),
        parentId: null,
        replicas: 0,
        variant: 0,
        workspaceId: null,
        whenCreated: Date.now(),
      };
      await db.insertInto('templates').values(row).execute();
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
        const text = optionalText(model.detail, DETAIL_MAX, 'detail');
        if (text.trim()) changes.detail = normalizeDetail(text, name);
        else changes.detail = template.isLinked ? null : normalizeDetail(null, name);
      }
      await db.updateTable('templates').set(changes).where('id', '=', template.id).execute();
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
        whenCreated: Date.now(),
      };
      await db.insertInto('templates').values(row).execute();
      return templateDetailDto(row, source);
    },
  };
}

export type TemplateService = ReturnType<typeof createTemplateService>;
