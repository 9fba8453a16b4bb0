import type { WorkspaceEditorActorRef } from '../../../machines/workspaceEditorMachine';

/** The workspace's Document section (spec §2 Workspace editor). */
export default function DocumentSection({ editor }: { editor: WorkspaceEditorActorRef }) {
  void editor;
  return <p className="tp-muted">The Document editor is not available yet.</p>;
}
