import type { AnyStateMachine } from 'xstate';
import { authTokenMachine } from './authTokenMachine';
import { hubChannelMachine } from './hubChannelMachine';
import { hubConnectionMachine } from './hubConnectionMachine';
import { loginMachine } from './loginMachine';
import { newWorkspaceMachine } from './newWorkspaceMachine';
import { oidcCallbackMachine } from './oidcCallbackMachine';
import { presenceMachine } from './presenceMachine';
import { sidebarMachine } from './sidebarMachine';
import { workspaceEditorMachine } from './workspaceEditorMachine';

/**
 * Every machine of the SPA by name. `npm run charts` draws each one to docs/charts/<name>.md,
 * and tests/charts.test.ts fails when a chart is missing or out of date.
 */
export const machines = {
  authToken: authTokenMachine,
  hubConnection: hubConnectionMachine,
  hubChannel: hubChannelMachine,
  presence: presenceMachine,
  login: loginMachine,
  oidcCallback: oidcCallbackMachine,
  newWorkspace: newWorkspaceMachine,
  sidebar: sidebarMachine,
  workspaceEditor: workspaceEditorMachine,
} satisfies Record<string, AnyStateMachine>;
