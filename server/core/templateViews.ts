import type { NamedTemplate } from '../store/repositories/templates';
import type { TemplateTable } from '../store/schema';
import { isoDate } from './dto';
import { EMPTY_GUID } from './ids';

// Templates as the routes and the hub show them (wire reference §2.4): the workspace's view of a
// template, the summary lists show, and the administrators' template detail.

export type { NamedTemplate };

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
