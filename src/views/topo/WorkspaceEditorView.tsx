import { useSelector } from '@xstate/react';
import { NavLink, useNavigate } from 'react-router';
import {
  WORKSPACE_SECTIONS,
  type WorkspaceEditorActorRef,
  type WorkspaceSection,
} from '../../machines/workspaceEditorMachine';
import {
  selectPresence,
  selectShowJanitorNotice,
  selectWorkspaceHeader,
  selectWorkspaceLoadError,
} from '../../machines/workspaceEditorMachine.selectors';
import { Spinner } from '../common/Spinner';
import { PresenceBar } from './PresenceBar';

const SECTION_LABELS: Record<WorkspaceSection, string> = {
  settings: 'Settings',
  templates: 'Templates',
  document: 'Document',
  challenge: 'Challenge',
  files: 'Files',
  play: 'Play',
};

const tabClass = ({ isActive }: { isActive: boolean }) =>
  isActive ? 'tp-tab tp-tab-active' : 'tp-tab';

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
        <i className="pi pi-times" aria-hidden="true" />
      </button>
    </div>
  );
}

/** The workspace editor: header, section tabs and the section in view (spec §2). */
export default function WorkspaceEditorView({
  editor,
  section,
  uploadEnabled,
}: {
  editor: WorkspaceEditorActorRef;
  section: WorkspaceSection;
  uploadEnabled: boolean;
}) {
  const workspace = useSelector(editor, selectWorkspaceHeader);
  const error = useSelector(editor, selectWorkspaceLoadError);
  const presence = useSelector(editor, selectPresence);
  const navigate = useNavigate();

  if (error !== null) {
    return (
      <div className="tp-page tp-center">
        <h1 className="tp-error-title">{error}</h1>
        <button type="button" className="p-button p-component" onClick={() => navigate('/')}>
          Continue
        </button>
      </div>
    );
  }

  if (workspace === null) return <Spinner label="Loading workspace" />;

  const sections = WORKSPACE_SECTIONS.filter((s) => s !== 'files' || uploadEnabled);

  return (
    <div className="tp-page">
      <header className="tp-workspace-header">
        <div className="tp-workspace-title">
          <div>
            <p className="tp-muted tp-small">{workspace.id}</p>
            <h1>{workspace.name}</h1>
          </div>
          {presence && <PresenceBar presence={presence} />}
        </div>
        <nav className="tp-tabs" aria-label="Workspace sections">
          {sections.map((s) => (
            <NavLink key={s} to={`/topo/${workspace.id}/${s}`} className={tabClass}>
              {SECTION_LABELS[s]}
            </NavLink>
          ))}
        </nav>
      </header>
      <section aria-label={SECTION_LABELS[section]}>
        {section === 'settings' && <JanitorNotice editor={editor} />}
        <p className="tp-muted">The {SECTION_LABELS[section]} editor is not available yet.</p>
      </section>
    </div>
  );
}
