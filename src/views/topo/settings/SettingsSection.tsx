import { useSelector } from '@xstate/react';
import type { WorkspaceEditorActorRef } from '../../../machines/workspaceEditorMachine';
import {
  selectCollaboratorsActor,
  selectInvitationActor,
  selectSettingsActor,
  selectShowJanitorNotice,
  selectWorkspaceActionsActor,
} from '../../../machines/workspaceEditorMachine.selectors';
import { Collaborators } from './Collaborators';
import { Invitation } from './Invitation';
import { SettingsForm } from './SettingsForm';
import { WorkspaceActions } from './WorkspaceActions';
import { Icon, piTimes } from '../../common/icons';

function JanitorNotice({ editor }: { editor: WorkspaceEditorActorRef }) {
  const show = useSelector(editor, selectShowJanitorNotice);
  if (!show) return null;
  return (
    <div className="tp-alert tp-alert-warning" role="status">
      <span>Inactive workspaces may be deleted by the janitor.</span>
      <button
        type="button"
        className="tp-alert-close"
        aria-label="Dismiss"
        onClick={() => editor.send({ type: 'workspace.janitorNoticeDismissed' })}
      >
        <Icon shape={piTimes} />
      </button>
    </div>
  );
}

/** The Settings tab (spec §2): the janitor alert, the fields, collaborators, invitation, clone and delete. */
export default function SettingsSection({ editor }: { editor: WorkspaceEditorActorRef }) {
  const settings = useSelector(editor, selectSettingsActor);
  const collaborators = useSelector(editor, selectCollaboratorsActor);
  const invitation = useSelector(editor, selectInvitationActor);
  const actions = useSelector(editor, selectWorkspaceActionsActor);
  return (
    <div className="tp-settings">
      <JanitorNotice editor={editor} />
      {settings && <SettingsForm settings={settings} />}
      <div className="tp-settings-side">
        {collaborators && <Collaborators collaborators={collaborators} />}
        {invitation && <Invitation invitation={invitation} />}
        {actions && <WorkspaceActions actions={actions} />}
      </div>
    </div>
  );
}
