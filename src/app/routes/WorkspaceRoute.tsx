import { useActorRef } from '@xstate/react';
import { useParams } from 'react-router';
import {
  isWorkspaceSection,
  workspaceEditorMachine,
  type WorkspaceSection,
} from '../../machines/workspaceEditorMachine';
import WorkspaceEditorView from '../../views/topo/WorkspaceEditorView';
import { useAppServices } from '../services';

function WorkspaceEditor({ id, section }: { id: string; section: WorkspaceSection }) {
  const { settings, implementations, inspect } = useAppServices();
  const editor = useActorRef(workspaceEditorMachine.provide(implementations.workspaceEditor), {
    input: { id },
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
