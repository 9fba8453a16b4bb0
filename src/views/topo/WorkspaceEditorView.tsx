import { useSelector } from '@xstate/react';
import { lazy, Suspense } from 'react';
import { NavLink, useNavigate } from 'react-router';
import {
  WORKSPACE_SECTIONS,
  type WorkspaceEditorActorRef,
  type WorkspaceSection,
} from '../../machines/workspaceEditorMachine';
import {
  selectDeletedBy,
  selectPresence,
  selectWorkspaceHeader,
  selectWorkspaceLoadError,
} from '../../machines/workspaceEditorMachine.selectors';
import { Spinner } from '../common/Spinner';
import { useTitle } from '../common/useTitle';
import { PresenceBar } from './PresenceBar';

// Each section loads when it is first shown.
const SettingsSection = lazy(() => import('./settings/SettingsSection'));
const TemplatesSection = lazy(() => import('./templates/TemplatesSection'));
const DocumentSection = lazy(() => import('./document/DocumentSection'));
const ChallengeSection = lazy(() => import('./challenge/ChallengeSection'));
const FilesSection = lazy(() => import('./files/FilesSection'));
const PlaySection = lazy(() => import('./play/PlaySection'));

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

/** A message and the way home: the workspace could not be opened, or is gone. */
function Stopped({ title, detail }: { title: string; detail?: string }) {
  const navigate = useNavigate();
  return (
    <div className="tp-page tp-center">
      <h1 className="tp-error-title">{title}</h1>
      {detail && <p className="tp-muted">{detail}</p>}
      <button type="button" className="p-button p-component" onClick={() => navigate('/')}>
        Continue
      </button>
    </div>
  );
}

function Section({
  editor,
  section,
}: {
  editor: WorkspaceEditorActorRef;
  section: WorkspaceSection;
}) {
  switch (section) {
    case 'settings':
      return <SettingsSection editor={editor} />;
    case 'templates':
      return <TemplatesSection editor={editor} />;
    case 'document':
      return <DocumentSection editor={editor} />;
    case 'challenge':
      return <ChallengeSection editor={editor} />;
    case 'files':
      return <FilesSection editor={editor} />;
    case 'play':
      return <PlaySection editor={editor} />;
  }
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
  const deletedBy = useSelector(editor, selectDeletedBy);
  const presence = useSelector(editor, selectPresence);
  useTitle(workspace?.name || 'Workspace', SECTION_LABELS[section]);

  if (error !== null) return <Stopped title={error} />;

  if (deletedBy !== null) {
    return (
      <Stopped
        title="This workspace was deleted."
        detail={deletedBy ? `${deletedBy} deleted it while it was open.` : undefined}
      />
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
        <Suspense fallback={<Spinner label={`Loading ${SECTION_LABELS[section]}`} />}>
          <Section editor={editor} section={section} />
        </Suspense>
      </section>
    </div>
  );
}
