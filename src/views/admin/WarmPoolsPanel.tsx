import { useSelector } from '@xstate/react';
import { useId } from 'react';
import { MAX_POOL_SIZE, type WarmPoolsActorRef } from '../../machines/warmPoolsMachine';
import {
  selectIsLoadingPools,
  selectIsSavingPool,
  selectPoolFormError,
  selectPoolFormSize,
  selectPoolFormWorkspace,
  selectPoolInvalidField,
  selectPoolListError,
  selectPools,
  selectPoolSaveError,
  selectSavedPool,
} from '../../machines/warmPoolsMachine.selectors';
import { Icon, piSave } from '../common/icons';
import { RefreshButton } from './RefreshButton';

// The Dashboard's Warm pools panel (docs/operations.md "Warm pools"): how each workspace's pool
// is doing, and a form that sets a workspace's pool size (0 turns it off).

function SizeForm({ pools }: { pools: WarmPoolsActorRef }) {
  const workspaceId = useSelector(pools, selectPoolFormWorkspace);
  const size = useSelector(pools, selectPoolFormSize);
  const formError = useSelector(pools, selectPoolFormError);
  const invalidField = useSelector(pools, selectPoolInvalidField);
  const saveError = useSelector(pools, selectPoolSaveError);
  const saved = useSelector(pools, selectSavedPool);
  const saving = useSelector(pools, selectIsSavingPool);
  const id = useId();
  const problemId = `${id}-problem`;
  return (
    // noValidate: the machine checks the fields and says why in words of its own, where the
    // browser's bubble would stop the submit unseen by it.
    <form
      className="tp-form"
      aria-label="Set a pool size"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        pools.send({ type: 'pool.saveRequested' });
      }}
    >
      <div className="tp-field">
        <label htmlFor={`${id}-workspace`}>Workspace id</label>
        <input
          id={`${id}-workspace`}
          className="p-inputtext p-component"
          value={workspaceId}
          aria-invalid={invalidField === 'workspace'}
          aria-describedby={invalidField === 'workspace' ? problemId : undefined}
          onChange={(e) => pools.send({ type: 'pool.workspaceEdited', text: e.target.value })}
        />
      </div>
      <div className="tp-field">
        <label htmlFor={`${id}-size`}>
          Sets to keep ready (0 to {MAX_POOL_SIZE}; 0 turns it off)
        </label>
        <input
          id={`${id}-size`}
          className="p-inputtext p-component"
          type="number"
          min={0}
          max={MAX_POOL_SIZE}
          step={1}
          value={size}
          aria-invalid={invalidField === 'size'}
          aria-describedby={invalidField === 'size' ? problemId : undefined}
          onChange={(e) => pools.send({ type: 'pool.sizeEdited', text: e.target.value })}
        />
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
          {saved.size === 0
            ? `The pool of ${saved.workspaceId} is off.`
            : `The pool of ${saved.workspaceId} keeps ${saved.size} sets ready.`}
        </p>
      )}
    </form>
  );
}

export function WarmPoolsPanel({ pools }: { pools: WarmPoolsActorRef }) {
  const list = useSelector(pools, selectPools);
  const loading = useSelector(pools, selectIsLoadingPools);
  const error = useSelector(pools, selectPoolListError);
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
            </tr>
          </thead>
          <tbody>
            {list.map((p) => (
              <tr key={p.workspaceId}>
                <td>
                  <code>{p.workspaceId}</code>
                </td>
                <td>{p.size}</td>
                <td>{p.target}</td>
                <td>{p.ready}</td>
                <td>{p.warming}</td>
                <td>{p.claimedLastHour}</td>
                <td>{p.misses}</td>
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
      <SizeForm pools={pools} />
    </section>
  );
}
