/**
 * The workspace editor's tabs, in order; 'files' is offered only when uploads are enabled. Kept
 * apart from the editor machine so that the router and the sidebar, which load with the first
 * page, do not bring the editor and its sections with them.
 */
export const WORKSPACE_SECTIONS = [
  'settings',
  'templates',
  'document',
  'challenge',
  'files',
  'play',
] as const;
export type WorkspaceSection = (typeof WORKSPACE_SECTIONS)[number];

export const isWorkspaceSection = (value: string | undefined): value is WorkspaceSection =>
  (WORKSPACE_SECTIONS as readonly string[]).includes(value ?? '');
