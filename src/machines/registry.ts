import type { AnyStateMachine } from 'xstate';
import { adminDashboardMachine } from './adminDashboardMachine';
import { adminVmsMachine } from './adminVmsMachine';
import { workspaceArchiveMachine } from './workspaceArchiveMachine';
import { warmPoolsMachine } from './warmPoolsMachine';
import { alertsMachine } from './alertsMachine';
import { announcementsMachine } from './announcementsMachine';
import { authTokenMachine } from './authTokenMachine';
import { autosaveFormMachine } from './autosaveFormMachine';
import { challengeFormMachine } from './challengeFormMachine';
import { collaboratorsMachine } from './collaboratorsMachine';
import { consoleClipboardMachine } from './consoleClipboardMachine';
import { consoleHeartbeatMachine } from './consoleHeartbeatMachine';
import { consoleMachine } from './consoleMachine';
import { consoleNetworkMachine } from './consoleNetworkMachine';
import { documentCursorsMachine } from './documentCursorsMachine';
import { documentEditorMachine } from './documentEditorMachine';
import { documentLogMachine } from './documentLogMachine';
import { diskImagesMachine } from './diskImagesMachine';
import { dispatcherConsoleMachine } from './dispatcherConsoleMachine';
import { documentOutboxMachine } from './documentOutboxMachine';
import { gamespaceBrowserMachine } from './gamespaceBrowserMachine';
import { gamespaceCleanupMachine } from './gamespaceCleanupMachine';
import { gamespaceDetailMachine } from './gamespaceDetailMachine';
import { recordingListMachine } from './recordingListMachine';
import { workspaceResultsMachine } from './workspaceResultsMachine';
import { myResultsMachine } from './myResultsMachine';
import { thumbnailMachine } from './thumbnailMachine';
import { wallMachine } from './wallMachine';
import { replayPlayerMachine } from './replayPlayerMachine';
import { gamespaceActionMachine } from './gamespaceActionMachine';
import { gamespaceLaunchMachine } from './gamespaceLaunchMachine';
import { gamespacePlayMachine } from './gamespacePlayMachine';
import { gamespaceSessionMachine } from './gamespaceSessionMachine';
import { gameStatePollMachine } from './gameStatePollMachine';
import { gameTimelineMachine } from './gameTimelineMachine';
import { gameVmsMachine } from './gameVmsMachine';
import { helpQueueMachine } from './helpQueueMachine';
import { helpRequestMachine } from './helpRequestMachine';
import { hubChannelMachine } from './hubChannelMachine';
import { hubConnectionMachine } from './hubConnectionMachine';
import { hubConnectorMachine } from './hubConnectorMachine';
import { hubOutboxMachine } from './hubOutboxMachine';
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
import { profileMachine } from './profileMachine';
import { questionSetMachine } from './questionSetMachine';
import { serverLogMachine } from './serverLogMachine';
import { sidebarMachine } from './sidebarMachine';
import { silentRenewMachine } from './silentRenewMachine';
import { templateActionsMachine } from './templateActionsMachine';
import { templateEditorMachine } from './templateEditorMachine';
import { templateListMachine } from './templateListMachine';
import { templateDetailMachine } from './templateDetailMachine';
import { templateManagerMachine } from './templateManagerMachine';
import { templateSelectorMachine } from './templateSelectorMachine';
import { tokenChangeMachine } from './tokenChangeMachine';
import { uploadMachine } from './uploadMachine';
import { uploadQueueMachine } from './uploadQueueMachine';
import { userAccountMachine } from './userAccountMachine';
import { userAdminMachine } from './userAdminMachine';
import { userDetailMachine } from './userDetailMachine';
import { userRegistrationMachine } from './userRegistrationMachine';
import { vmActionsMachine } from './vmActionsMachine';
import { vmControllerMachine } from './vmControllerMachine';
import { vmLoadMachine } from './vmLoadMachine';
import { vmRequestMachine } from './vmRequestMachine';
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
  tokenChange: tokenChangeMachine,
  userRegistration: userRegistrationMachine,
  silentRenew: silentRenewMachine,
  hubConnection: hubConnectionMachine,
  hubConnector: hubConnectorMachine,
  hubOutbox: hubOutboxMachine,
  hubChannel: hubChannelMachine,
  presence: presenceMachine,
  login: loginMachine,
  oidcCallback: oidcCallbackMachine,
  newWorkspace: newWorkspaceMachine,
  sidebar: sidebarMachine,
  pagedSearch: pagedSearchMachine,
  workspaceBrowser: workspaceBrowserMachine,
  userAdmin: userAdminMachine,
  userDetail: userDetailMachine,
  userAccount: userAccountMachine,
  profile: profileMachine,
  workspaceInvitation: workspaceInvitationMachine,
  workspaceEditor: workspaceEditorMachine,
  workspaceSettings: workspaceSettingsMachine,
  autosaveForm: autosaveFormMachine,
  collaborators: collaboratorsMachine,
  invitation: invitationMachine,
  workspaceActions: workspaceActionsMachine,
  templateList: templateListMachine,
  templateEditor: templateEditorMachine,
  templateActions: templateActionsMachine,
  isoChooser: isoChooserMachine,
  templateSelector: templateSelectorMachine,
  templateManager: templateManagerMachine,
  templateDetail: templateDetailMachine,
  gamespaceCleanup: gamespaceCleanupMachine,
  console: consoleMachine,
  consoleNetwork: consoleNetworkMachine,
  consoleHeartbeat: consoleHeartbeatMachine,
  consoleClipboard: consoleClipboardMachine,
  vmController: vmControllerMachine,
  vmLoad: vmLoadMachine,
  vmActions: vmActionsMachine,
  vmRequest: vmRequestMachine,
  documentEditor: documentEditorMachine,
  documentLog: documentLogMachine,
  documentOutbox: documentOutboxMachine,
  documentCursors: documentCursorsMachine,
  isoFiles: isoFilesMachine,
  uploadQueue: uploadQueueMachine,
  diskImages: diskImagesMachine,
  upload: uploadMachine,
  imageManager: imageManagerMachine,
  challengeForm: challengeFormMachine,
  gamespaceSession: gamespaceSessionMachine,
  gamespaceAction: gamespaceActionMachine,
  gamespacePlay: gamespacePlayMachine,
  gameVms: gameVmsMachine,
  gamespaceBrowser: gamespaceBrowserMachine,
  gamespaceDetail: gamespaceDetailMachine,
  recordingList: recordingListMachine,
  workspaceResults: workspaceResultsMachine,
  myResults: myResultsMachine,
  wall: wallMachine,
  thumbnail: thumbnailMachine,
  replayPlayer: replayPlayerMachine,
  dispatcherConsole: dispatcherConsoleMachine,
  questionSet: questionSetMachine,
  gamespaceLaunch: gamespaceLaunchMachine,
  launchSignIn: launchSignInMachine,
  gameStatePoll: gameStatePollMachine,
  gameTimeline: gameTimelineMachine,
  alerts: alertsMachine,
  helpRequest: helpRequestMachine,
  helpQueue: helpQueueMachine,
  announcements: announcementsMachine,
  adminDashboard: adminDashboardMachine,
  adminVms: adminVmsMachine,
  serverLog: serverLogMachine,
  workspaceArchive: workspaceArchiveMachine,
  warmPools: warmPoolsMachine,
} satisfies Record<string, AnyStateMachine>;
