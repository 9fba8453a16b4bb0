import { useSelector } from '@xstate/react';
import type { PagedSearchActorRef } from '../../machines/pagedSearchMachine';
import {
  selectIsSearchLoading,
  selectItems,
  selectSearchError,
} from '../../machines/pagedSearchMachine.selectors';
import type { TemplateManagerActorRef, TemplateRow } from '../../machines/templateManagerMachine';
import {
  selectCanClone,
  selectCreating,
  selectDetail,
  selectManagerError,
  selectSearch,
  selectSelectedId,
} from '../../machines/templateManagerMachine.selectors';
import { UnavailableMark } from '../common/UnavailableMark';
import { TemplateDetailForm } from './TemplateManagerDetail';

// The admin Template Manager (spec §2 admin/templates?term=): every template, stock and of
// workspaces, searched as typed; the selected one's detail form; new stock templates and clones.

function TemplateList({
  search,
  manager,
}: {
  search: PagedSearchActorRef<TemplateRow>;
  manager: TemplateManagerActorRef;
}) {
  const items = useSelector(search, selectItems);
  const error = useSelector(search, selectSearchError);
  const loading = useSelector(search, selectIsSearchLoading);
  const term = useSelector(search, (s) => s.context.term);
  const selectedId = useSelector(manager, selectSelectedId);
  return (
    <div className="tp-template-list">
      <input
        type="search"
        aria-label="term"
        placeholder="term"
        value={term}
        onChange={(e) => search.send({ type: 'search.termChanged', term: e.target.value })}
      />
      {error && <p role="alert">{error}</p>}
      <ul aria-label="Templates" aria-busy={loading}>
        {items.map((row) => (
          <li key={row.id} className={row.unavailable ? 'tp-template-unavailable' : undefined}>
            <button
              type="button"
              className="tp-template-name"
              aria-pressed={row.id === selectedId}
              aria-describedby={row.unavailable ? `tp-unavailable-${row.id}` : undefined}
              onClick={() => manager.send({ type: 'template.selected', id: row.id })}
            >
              {row.name || row.id}
            </button>{' '}
            <span className="tp-muted">
              {row.workspaceName ? `in ${row.workspaceName}` : 'stock'}
              {row.isLinked ? ` · linked to ${row.parentName ?? 'its parent'}` : ''}
              {row.isPublished ? ' · published' : ''}
            </span>
            {row.unavailable && (
              <>
                {' '}
                <UnavailableMark id={`tp-unavailable-${row.id}`} reason={row.unavailable} />
              </>
            )}
          </li>
        ))}
      </ul>
      {!loading && items.length === 0 && <p className="tp-muted">No templates match.</p>}
    </div>
  );
}

export function TemplateManagerView({ manager }: { manager: TemplateManagerActorRef }) {
  const search = useSelector(manager, selectSearch);
  const detail = useSelector(manager, selectDetail);
  const creating = useSelector(manager, selectCreating);
  const canClone = useSelector(manager, selectCanClone);
  const error = useSelector(manager, selectManagerError);
  return (
    <section className="tp-admin-plain" aria-label="Templates">
      <h2>Templates</h2>
      <div className="tp-template-tools">
        <button
          type="button"
          disabled={creating}
          onClick={() => manager.send({ type: 'template.createRequested' })}
        >
          New stock template
        </button>
        <button
          type="button"
          disabled={!canClone}
          onClick={() => manager.send({ type: 'template.cloneRequested' })}
        >
          Clone
        </button>
      </div>
      {error && (
        <p role="alert">
          {error}{' '}
          <button type="button" onClick={() => manager.send({ type: 'alert.dismissed' })}>
            Dismiss
          </button>
        </p>
      )}
      <div className="tp-template-manager">
        {search && <TemplateList search={search} manager={manager} />}
        {detail ? (
          <TemplateDetailForm key={detail.id} detail={detail} />
        ) : (
          <p className="tp-muted">Select a template to edit its detail.</p>
        )}
      </div>
    </section>
  );
}
