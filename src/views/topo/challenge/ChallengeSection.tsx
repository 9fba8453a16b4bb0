import type { WorkspaceEditorActorRef } from '../../../machines/workspaceEditorMachine';

/** The workspace's Challenge section (spec §2 Workspace editor). */
export default function ChallengeSection({ editor }: { editor: WorkspaceEditorActorRef }) {
  void editor;
  return <p className="tp-muted">The Challenge editor is not available yet.</p>;
}
