import { useActorRef, useSelector } from '@xstate/react';
import { useMemo } from 'react';
import { useParams } from 'react-router';
import type { AuthTokenSnapshot } from '../../machines/authTokenMachine';
import { selectProfile } from '../../machines/authTokenMachine.selectors';
import {
  isWorkspaceSection,
  workspaceEditorMachine,
  type WorkspaceSection,
} from '../../machines/workspaceEditorMachine';
import WorkspaceEditorView from '../../views/topo/WorkspaceEditorView';
import { PlayLaunchContext } from '../../views/topo/play/playLaunchContext';
import { gamespaceLaunchLogic } from '../playImplementations';
import { useAppServices } from '../services';
import { workspaceEditorImplementations } from '../workspaceImplementations';

const selectUserId = (snapshot: AuthTokenSnapshot) => selectProfile(snapshot)?.id ?? null;
const selectMaxMinutes = (snapshot: AuthTokenSnapshot) =>
  selectProfile(snapshot)?.gamespaceMaxMinutes ?? 0;

function WorkspaceEditor({ id, section }: { id: string; section: WorkspaceSection }) {
  const { settings, auth, workspace, inspect } = useAppServices();
  // Read once, when the editor actor is created: it only marks the user's other tabs.
  const userId = useSelector(auth, selectUserId);
  const accountMaxMinutes = useSelector(auth, selectMaxMinutes);
  // The editor's effects, built when the workspace route first loads (it is loaded on demand).
  const machine = useMemo(
    () => workspaceEditorMachine.provide(workspaceEditorImplementations(workspace)),
    [workspace],
  );
  const editor = useActorRef(machine, {
    input: { id, userId, origin: window.location.origin },
    inspect,
  });
  // The Play tab's launcher, run like the editor's sections: its settings outlive a tab switch.
  const launchLogic = useMemo(() => gamespaceLaunchLogic(workspace), [workspace]);
  const launcher = useActorRef(launchLogic, {
    input: { workspaceId: id, accountMaxMinutes },
    inspect,
  });
  return (
    <PlayLaunchContext.Provider value={launcher}>
      <WorkspaceEditorView
        editor={editor}
        section={section}
        uploadEnabled={settings.enable_upload}
      />
    </PlayLaunchContext.Provider>
  );
}

/** /topo/{id}/{section}; the route loader has already sent unknown sections to settings. */
export default function WorkspaceRoute() {
  const { id = '', section } = useParams();
  // One editor actor per workspace: another id is another workspace to load.
  return (
    <WorkspaceEditor
      key={id}
      id={id}
      section={isWorkspaceSection(section) ? section : 'settings'}
    />
  );
}
