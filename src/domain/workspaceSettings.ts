/**
 * The workspace settings form (spec §2 Settings tab, §5 Workspace settings): its fields as the
 * form edits them (text, the duration too, so that a half-typed number is kept as typed), and
 * their validation. The limits are the server's too (wire reference §2.1, §6): its workspace
 * service and route schemas read them from here, so what the form accepts the server accepts.
 */

export const WORKSPACE_SETTINGS_FIELDS = [
  'name',
  'description',
  'author',
  'audience',
  'tags',
  'durationMinutes',
  'recordConsoles',
] as const;
export type WorkspaceSettingsField = (typeof WORKSPACE_SETTINGS_FIELDS)[number];
export type WorkspaceSettingsValues = Record<WorkspaceSettingsField, string>;

/** The most characters a workspace's text fields hold (wire reference §6). */
export const WORKSPACE_LIMITS = {
  name: 64,
  description: 255,
  tags: 255,
  author: 64,
  audience: 64,
  templateScope: 64,
} as const;

/** The limits of the fields the settings form edits (the template scope is an administrator's). */
export const WORKSPACE_SETTINGS_LIMITS = {
  name: WORKSPACE_LIMITS.name,
  description: WORKSPACE_LIMITS.description,
  author: WORKSPACE_LIMITS.author,
  audience: WORKSPACE_LIMITS.audience,
  tags: WORKSPACE_LIMITS.tags,
} as const;

/**
 * Whether the workspace's consoles are recorded (its `recordConsoles`): a choice of three, kept as
 * text like the other fields; 'default' is null on the wire, the administrator's RECORD_CONSOLES.
 */
export const RECORD_CONSOLES_CHOICES = [
  { value: 'default', label: "The server's default" },
  { value: 'on', label: 'On' },
  { value: 'off', label: 'Off' },
] as const;
export type RecordConsolesChoice = (typeof RECORD_CONSOLES_CHOICES)[number]['value'];

const isRecordConsolesChoice = (text: string): text is RecordConsolesChoice =>
  RECORD_CONSOLES_CHOICES.some((choice) => choice.value === text);

/** The form's choice for the workspace's `recordConsoles`. */
export const recordConsolesChoiceOf = (record: boolean | null | undefined): RecordConsolesChoice =>
  record === true ? 'on' : record === false ? 'off' : 'default';

/** The workspace's `recordConsoles` for the form's choice (an unknown one is the default). */
export const recordConsolesOf = (choice: string): boolean | null =>
  choice === 'on' ? true : choice === 'off' ? false : null;

/** The audience value that makes a workspace playable by everyone (spec §5 Audience). */
export const GLOBAL_AUDIENCE = 'everyone';

export type FieldMessages<F extends string> = Readonly<Partial<Record<F, string>>>;

const tooLong = (max: number) => `At most ${max} characters.`;

/** 0 or more whole minutes; '' means unset (the server stores 0). */
const isMinutes = (text: string) => /^\s*\d*\s*$/.test(text);

/** The messages to show, by field; an empty object when the form may be saved. */
export function validateWorkspaceSettings(
  values: WorkspaceSettingsValues,
): FieldMessages<WorkspaceSettingsField> {
  const messages: Partial<Record<WorkspaceSettingsField, string>> = {};
  if (values.name.trim() === '') messages.name = 'Please enter a name for this workspace.';
  for (const field of Object.keys(WORKSPACE_SETTINGS_LIMITS) as Array<
    keyof typeof WORKSPACE_SETTINGS_LIMITS
  >) {
    const max = WORKSPACE_SETTINGS_LIMITS[field];
    if (messages[field] === undefined && values[field].length > max) messages[field] = tooLong(max);
  }
  if (!isMinutes(values.durationMinutes)) {
    messages.durationMinutes = 'Enter a whole number of minutes (0 or more).';
  }
  if (!isRecordConsolesChoice(values.recordConsoles)) {
    messages.recordConsoles = "Choose the server's default, on or off.";
  }
  return messages;
}

/** A workspace as the server sends it: any field may be missing or null. */
export interface WorkspaceSettingsSource {
  name?: string | null;
  description?: string | null;
  author?: string | null;
  audience?: string | null;
  tags?: string | null;
  durationMinutes?: number | null;
  recordConsoles?: boolean | null;
}

/** The form's view of a workspace: every field as text, the recording choice as its name. */
export function workspaceSettingsOf(workspace: WorkspaceSettingsSource): WorkspaceSettingsValues {
  return {
    name: workspace.name ?? '',
    description: workspace.description ?? '',
    author: workspace.author ?? '',
    audience: workspace.audience ?? '',
    tags: workspace.tags ?? '',
    durationMinutes: String(workspace.durationMinutes ?? 0),
    recordConsoles: recordConsolesChoiceOf(workspace.recordConsoles),
  };
}

/** The body of PUT workspace (RestrictedChangedWorkspace) from valid form values. */
export function changedWorkspace(id: string, values: WorkspaceSettingsValues) {
  const minutes = values.durationMinutes.trim();
  return {
    id,
    name: values.name.trim(),
    description: values.description,
    tags: values.tags,
    author: values.author,
    audience: values.audience,
    durationMinutes: minutes === '' ? 0 : Number(minutes),
    recordConsoles: recordConsolesOf(values.recordConsoles),
  };
}

/** The audience is space-delimited clients; 'everyone' among them makes it global (spec §5). */
export const isGlobalAudience = (audience: string): boolean =>
  audience.split(/\s+/).some((client) => client.toLowerCase() === GLOBAL_AUDIENCE);
