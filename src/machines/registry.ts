import type { AnyStateMachine } from 'xstate';
import { authTokenMachine } from './authTokenMachine';
import { challengeFormMachine } from './challengeFormMachine';
import { collaboratorsMachine } from './collaboratorsMachine';
import { consoleMachine } from './consoleMachine';
import { documentEditorMachine } from './documentEditorMachine';
import { gamespaceCleanupMachine } from './gamespaceCleanupMachine';
import { gamespaceLaunchMachine } from './gamespaceLaunchMachine';
import { gamespaceSessionMachine } from './gamespaceSessionMachine';
import { gameStatePollMachine } from './gameStatePollMachine';
import { hubChannelMachine } from './hubChannelMachine';
import { hubConnectionMachine } from './hubConnectionMachine';
import { imageManagerMachine } from './imageManagerMachine';
import { invitationMachine } from './invitationMachine';
import { isoChooserMachine } from './isoChooserMachine';
import { isoFilesMachine } from './isoFilesMachine';
import { launchSignInMachine } from './launchSignInMachine';
import { loginMachine } from './loginMachine';
import { newWorkspaceMachine } from './newWorkspaceMachine';
import { oidcCallbackMachine } from './oidcCallbackMachine';
import { pagedSearchMachine } from './pagedSearchMachine';
import { presenceMachine } from './presenceMachine';
import { questionSetMachine } from './questionSetMachine';
import { sidebarMachine } from './sidebarMachine';
import { templateEditorMachine } from './templateEditorMachine';
import { templateListMachine } from './templateListMachine';
import { templateSelectorMachine } from './templateSelectorMachine';
import { uploadMachine } from './uploadMachine';
import { uploadQueueMachine } from './uploadQueueMachine';
import { vmControllerMachine } from './vmControllerMachine';
import { workspaceActionsMachine } from './workspaceActionsMachine';
import { workspaceBrowserMachine } from './workspaceBrowserMachine';
import { workspaceEditorMachine } from './workspaceEditorMachine';
import { workspaceInvitationMachine } from './workspaceInvitationMachine';
import { workspaceSettingsMachine } from './workspaceSettingsMachine';

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
  pagedSearch: pagedSearchMachine,
  workspaceBrowser: workspaceBrowserMachine,
  workspaceInvitation: workspaceInvitationMachine,
  workspaceEditor: workspaceEditorMachine,
  workspaceSettings: workspaceSettingsMachine,
  collaborators: collaboratorsMachine,
  invitation: invitationMachine,
  workspaceActions: workspaceActionsMachine,
  templateList: templateListMachine,
  templateEditor: templateEditorMachine,
  isoChooser: isoChooserMachine,
  templateSelector: templateSelectorMachine,
  gamespaceCleanup: gamespaceCleanupMachine,
  console: consoleMachine,
  vmController: vmControllerMachine,
  documentEditor: documentEditorMachine,
  isoFiles: isoFilesMachine,
  uploadQueue: uploadQueueMachine,
  upload: uploadMachine,
  imageManager: imageManagerMachine,
  challengeForm: challengeFormMachine,
  gamespaceSession: gamespaceSessionMachine,
  questionSet: questionSetMachine,
  gamespaceLaunch: gamespaceLaunchMachine,
  launchSignIn: launchSignInMachine,
  gameStatePoll: gameStatePollMachine,
} satisfies Record<string, AnyStateMachine>;
