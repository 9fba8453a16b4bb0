import { useActorRef, useSelector } from '@xstate/react';
import { useParams } from 'react-router';
import type { AuthTokenSnapshot } from '../../machines/authTokenMachine';
import { selectProfile } from '../../machines/authTokenMachine.selectors';
import {
  isWorkspaceSection,
  workspaceEditorMachine,
  type WorkspaceSection,
} from '../../machines/workspaceEditorMachine';
import WorkspaceEditorView from '../../views/topo/WorkspaceEditorView';
import { useAppServices } from '../services';

const selectUserId = (snapshot: AuthTokenSnapshot) => selectProfile(snapshot)?.id ?? null;

function WorkspaceEditor({ id, section }: { id: string; section: WorkspaceSection }) {
  const { settings, auth, implementations, inspect } = useAppServices();
  // Read once, when the editor actor is created: it only marks the user's other tabs.
  const userId = useSelector(auth, selectUserId);
  const editor = useActorRef(workspaceEditorMachine.provide(implementations.workspaceEditor), {
    input: { id, userId },
    inspect,
  });
  return (
    <WorkspaceEditorView editor={editor} section={section} uploadEnabled={settings.enable_upload} />
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
