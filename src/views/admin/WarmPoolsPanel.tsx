import { useSelector } from '@xstate/react';
import { useId, useRef, type KeyboardEvent, type RefObject } from 'react';
import {
  MIN_SEARCH_LENGTH,
  type WarmPool,
  type WarmPoolsActorRef,
} from '../../machines/warmPoolsMachine';
import { MAX_POOL_SIZE } from '../../machines/warmPoolsMachine.rules';
import {
  selectHighlightedMatch,
  selectIsChoosingWorkspace,
  selectIsLoadingPools,
  selectIsSavingPool,
  selectIsSearchingWorkspaces,
  selectPoolFormError,
  selectPoolFormSize,
  selectPoolFormWorkspace,
  selectPoolFormWorkspaceText,
  selectPoolInvalidField,
  selectPoolListError,
  selectPools,
  selectPoolSaveError,
  selectSavedPool,
  selectWorkspaceMatches,
  selectWorkspaceSearchError,
} from '../../machines/warmPoolsMachine.selectors';
import { Icon, piPencil, piSave } from '../common/icons';
import { RefreshButton } from './RefreshButton';
import './WarmPoolsPanel.css';

// The Dashboard's Warm pools panel (docs/operations.md "Warm pools"): how each workspace's pool
// is doing, and a form that sets a workspace's pool size (0 turns it off). The form's workspace
// field is a combobox (WAI-ARIA 1.2, list autocomplete): the machine searches the names as the
// administrator types and offers a few matches in a listbox.

/** A pool's workspace as people read it: its name, or its id once it is deleted. */
const workspaceLabel = (pool: WarmPool) => pool.workspaceName ?? pool.workspaceId;

/** What a save did, naming the workspace. */
function savedMessage(saved: WarmPool): string {
  const name = workspaceLabel(saved);
  if (saved.size === 0) return `The pool of ${name} is off.`;
  return `The pool of ${name} keeps ${saved.size} ${saved.size === 1 ? 'set' : 'sets'} ready.`;
}

/** The workspace field and, under it, the matches of its search to pick from. */
function WorkspaceField({
  pools,
  id,
  problemId,
}: {
  pools: WarmPoolsActorRef;
  id: string;
  problemId: string;
}) {
  const text = useSelector(pools, selectPoolFormWorkspaceText);
  const workspaceId = useSelector(pools, selectPoolFormWorkspace);
  const invalid = useSelector(pools, selectPoolInvalidField) === 'workspace';
  const searching = useSelector(pools, selectIsSearchingWorkspaces);
  const choosing = useSelector(pools, selectIsChoosingWorkspace);
  const matches = useSelector(pools, selectWorkspaceMatches);
  const highlighted = useSelector(pools, selectHighlightedMatch);
  const searchError = useSelector(pools, selectWorkspaceSearchError);
  const inputId = `${id}-workspace`;
  const listId = `${id}-matches`;
  const hintId = `${id}-workspace-hint`;
  const optionId = (index: number) => `${id}-match-${index}`;
  const expanded = choosing && matches.length > 0;

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (!choosing) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      pools.send({ type: 'pool.highlightMoved', by: e.key === 'ArrowDown' ? 1 : -1 });
    } else if (e.key === 'Enter' && highlighted >= 0) {
      // Enter picks the highlighted match rather than submitting the form.
      e.preventDefault();
      pools.send({ type: 'pool.matchPicked', workspaceId: matches[highlighted]!.id });
    } else if (e.key === 'Escape') {
      e.preventDefault();
      pools.send({ type: 'pool.matchesDismissed' });
    }
  };

  let hint: string;
  if (searchError) hint = `The search failed: ${searchError}`;
  else if (searching) hint = 'Searching...';
  else if (choosing && matches.length === 0) hint = `No workspace matches "${text.trim()}".`;
  else if (choosing) {
    hint = `${matches.length} found: pick one with the arrow keys and Enter, or click it.`;
  } else if (workspaceId) hint = `Workspace id ${workspaceId}`;
  else hint = `Type ${MIN_SEARCH_LENGTH} or more letters of its name, or paste its id.`;

  return (
    <div className="tp-field tp-pool-workspace">
      <label htmlFor={inputId}>Workspace</label>
      <div className="tp-pool-combo">
        <input
          id={inputId}
          className="p-inputtext p-component"
          role="combobox"
          autoComplete="off"
          aria-autocomplete="list"
          aria-expanded={expanded}
          aria-controls={listId}
          aria-activedescendant={expanded && highlighted >= 0 ? optionId(highlighted) : undefined}
          aria-invalid={invalid}
          aria-describedby={invalid ? `${problemId} ${hintId}` : hintId}
          value={text}
          onChange={(e) => pools.send({ type: 'pool.workspaceEdited', text: e.target.value })}
          onKeyDown={onKeyDown}
          onBlur={() => {
            if (choosing) pools.send({ type: 'pool.matchesDismissed' });
          }}
        />
        <div className="p-autocomplete-panel p-component tp-pool-matches" hidden={!expanded}>
          <ul
            id={listId}
            role="listbox"
            aria-label="Workspaces found"
            className="p-autocomplete-items"
          >
            {expanded &&
              matches.map((m, index) => (
                <li
                  key={m.id}
                  id={optionId(index)}
                  role="option"
                  aria-selected={index === highlighted}
                  className={`p-autocomplete-item${index === highlighted ? ' p-highlight' : ''}`}
                  // The focus stays in the field: its blur would put the list away first.
                  onMouseDown={(e) => e.preventDefault()}
                  onClick={() => pools.send({ type: 'pool.matchPicked', workspaceId: m.id })}
                >
                  <span>{m.name}</span>
                  <span className="tp-pool-id">{m.id}</span>
                </li>
              ))}
          </ul>
        </div>
      </div>
      {/* The hint is read out as it changes (searching, no match, the id chosen). */}
      <span id={hintId} className="tp-field-hint tp-muted" aria-live="polite">
        {hint}
      </span>
    </div>
  );
}

function SizeForm({
  pools,
  sizeRef,
}: {
  pools: WarmPoolsActorRef;
  sizeRef: RefObject<HTMLInputElement | null>;
}) {
  const size = useSelector(pools, selectPoolFormSize);
  const formError = useSelector(pools, selectPoolFormError);
  const invalidField = useSelector(pools, selectPoolInvalidField);
  const saveError = useSelector(pools, selectPoolSaveError);
  const saved = useSelector(pools, selectSavedPool);
  const saving = useSelector(pools, selectIsSavingPool);
  const id = useId();
  const problemId = `${id}-problem`;
  return (
    <>
      <h4 id={`${id}-title`}>Set a pool size</h4>
      {/* noValidate: the machine checks the fields and says why in words of its own, where the
          browser's bubble would stop the submit unseen by it. */}
      <form
        className="tp-form tp-pool-form"
        aria-labelledby={`${id}-title`}
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          pools.send({ type: 'pool.saveRequested' });
        }}
      >
        <div className="tp-pool-fields">
          <WorkspaceField pools={pools} id={id} problemId={problemId} />
          <div className="tp-field tp-pool-size">
            <label htmlFor={`${id}-size`}>Sets to keep ready</label>
            <input
              id={`${id}-size`}
              ref={sizeRef}
              className="p-inputtext p-component"
              type="number"
              min={0}
              max={MAX_POOL_SIZE}
              step={1}
              value={size}
              aria-invalid={invalidField === 'size'}
              aria-describedby={
                invalidField === 'size' ? `${problemId} ${id}-size-hint` : `${id}-size-hint`
              }
              onChange={(e) => pools.send({ type: 'pool.sizeEdited', text: e.target.value })}
            />
            <span id={`${id}-size-hint`} className="tp-field-hint tp-muted">
              0 to {MAX_POOL_SIZE}; 0 turns the pool off.
            </span>
          </div>
        </div>
        <div className="tp-actions">
          <button type="submit" className="p-button p-component p-button-sm" disabled={saving}>
            <Icon shape={piSave} />
            <span>{saving ? 'Saving...' : 'Save'}</span>
          </button>
        </div>
        {formError && (
          <p id={problemId} className="tp-field-message" role="alert">
            {formError}
          </p>
        )}
        {saveError && (
          <p className="tp-alert tp-alert-danger" role="alert">
            {saveError}
          </p>
        )}
        {saved && (
          <p className="tp-muted" role="status">
            {savedMessage(saved)}
          </p>
        )}
      </form>
    </>
  );
}

export function WarmPoolsPanel({ pools }: { pools: WarmPoolsActorRef }) {
  const list = useSelector(pools, selectPools);
  const loading = useSelector(pools, selectIsLoadingPools);
  const error = useSelector(pools, selectPoolListError);
  const saving = useSelector(pools, selectIsSavingPool);
  // Edit moves the focus to the size, the field an administrator came to change.
  const sizeRef = useRef<HTMLInputElement>(null);
  return (
    <section aria-labelledby="tp-warm-pools" className="tp-panel">
      <div className="tp-section-header">
        <h3 id="tp-warm-pools">Warm pools</h3>
        <RefreshButton
          loading={loading}
          label="Refresh warm pools"
          onClick={() => pools.send({ type: 'pools.refreshRequested' })}
        />
      </div>
      <p className="tp-muted">
        Machine sets of a workspace kept deployed ahead of launches, so that a launch claims one
        instead of deploying. Only drivers that can hand machines over keep pools.
      </p>
      {error && (
        <p className="tp-alert tp-alert-danger" role="alert">
          {error}
        </p>
      )}
      {list.length > 0 && (
        <table className="tp-table" aria-label="Warm pools" aria-busy={loading}>
          <thead>
            <tr>
              <th scope="col">Workspace</th>
              <th scope="col">Size</th>
              <th scope="col">Target</th>
              <th scope="col">Ready</th>
              <th scope="col">Warming</th>
              <th scope="col">Claimed in the last hour</th>
              <th scope="col">Misses</th>
              <th scope="col">Scheduled</th>
              <th scope="col">
                <span className="tp-visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((p) => (
              <tr key={p.workspaceId}>
                <td>
                  {p.workspaceName ?? <span className="tp-muted">(deleted)</span>}
                  <span className="tp-pool-id">{p.workspaceId}</span>
                  {p.unpoolable && <span className="tp-pool-unpoolable">{p.unpoolable}</span>}
                </td>
                <td>{p.size}</td>
                <td>{p.target}</td>
                <td>{p.ready}</td>
                <td>{p.warming}</td>
                <td>{p.claimedLastHour}</td>
                <td>{p.misses}</td>
                <td>
                  {p.schedules.length === 0
                    ? '-'
                    : p.schedules.map((s) => (
                        <span key={s.at} className="tp-pool-schedule">
                          {`${s.count} at ${new Date(s.at).toLocaleString()}`}
                        </span>
                      ))}
                </td>
                <td className="tp-pool-actions">
                  <button
                    type="button"
                    className="p-button p-component p-button-sm p-button-text"
                    aria-label={`Edit the size of ${workspaceLabel(p)}`}
                    disabled={saving}
                    onClick={() => {
                      pools.send({ type: 'pool.editRequested', workspaceId: p.workspaceId });
                      sizeRef.current?.focus();
                    }}
                  >
                    <Icon shape={piPencil} />
                    <span>Edit size</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {!loading && !error && list.length === 0 && (
        <p className="tp-muted" role="status">
          No workspace keeps a warm pool.
        </p>
      )}
      <SizeForm pools={pools} sizeRef={sizeRef} />
    </section>
  );
}
