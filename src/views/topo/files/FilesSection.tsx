import type { WorkspaceEditorActorRef } from '../../../machines/workspaceEditorMachine';

/** The workspace's Files section (spec §2 Workspace editor). */
export default function FilesSection({ editor }: { editor: WorkspaceEditorActorRef }) {
  void editor;
  return <p className="tp-muted">The Files editor is not available yet.</p>;
}
