import { useSelector } from '@xstate/react';
import type { TemplateListActorRef } from '../../../machines/templateListMachine';
import {
  selectGamespaceCleanup,
  selectTemplateEditors,
  selectTemplateSelector,
  selectTopologyTemplates,
} from '../../../machines/templateListMachine.selectors';
import type { WorkspaceEditorActorRef } from '../../../machines/workspaceEditorMachine';
import { selectTemplateListActor } from '../../../machines/workspaceEditorMachine.selectors';
import { TopologyDiagram } from '../../common/TopologyDiagram';
import { GamespaceWarning } from './GamespaceWarning';
import { TemplateEditor } from './TemplateEditor';
import { TemplateSelector } from './TemplateSelector';

function TemplateList({ list }: { list: TemplateListActorRef }) {
  const editors = useSelector(list, selectTemplateEditors);
  const selector = useSelector(list, selectTemplateSelector);
  const cleanup = useSelector(list, selectGamespaceCleanup);
  const templates = useSelector(list, selectTopologyTemplates);
  return (
    <>
      {cleanup && <GamespaceWarning cleanup={cleanup} />}
      {editors.length === 0 && <p className="tp-muted">This workspace has no templates yet.</p>}
      {editors.length > 0 && <TopologyDiagram templates={templates} />}
      {editors.map((editor) => (
        <TemplateEditor key={editor.id} editor={editor} />
      ))}
      {selector && <TemplateSelector selector={selector} />}
    </>
  );
}

/** The Templates tab (spec §2): the gamespace warning, a template editor each, the selector. */
export default function TemplatesSection({ editor }: { editor: WorkspaceEditorActorRef }) {
  const list = useSelector(editor, selectTemplateListActor);
  return <div className="tp-templates">{list && <TemplateList list={list} />}</div>;
}
