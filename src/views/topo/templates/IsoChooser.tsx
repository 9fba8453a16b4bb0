import { useSelector } from '@xstate/react';
import { useId } from 'react';
import { isoDisplayName } from '../../../domain/templateFields';
import type { IsoChooserActorRef } from '../../../machines/isoChooserMachine';
import {
  selectIsIsoListUnavailable,
  selectIsoLocalOnly,
  selectIsoOptions,
  selectIsoTerm,
} from '../../../machines/isoChooserMachine.selectors';

/**
 * The ISO field (spec §2 Template editor): a choice among the ISOs found, with a search and a
 * 'this workspace only' filter. The ISOs are listed when the chooser is first used.
 */
export function IsoChooser({
  chooser,
  value,
  disabled,
  onChoose,
}: {
  chooser: IsoChooserActorRef;
  value: string;
  disabled: boolean;
  onChoose: (path: string) => void;
}) {
  const options = useSelector(chooser, selectIsoOptions);
  const term = useSelector(chooser, selectIsoTerm);
  const localOnly = useSelector(chooser, selectIsoLocalOnly);
  const unavailable = useSelector(chooser, selectIsIsoListUnavailable);
  const id = useId();
  const listRequested = () => chooser.send({ type: 'iso.listRequested' });
  return (
    <div className="tp-field">
      <label htmlFor={id}>ISO</label>
      <div className="tp-iso">
        <select
          id={id}
          className="p-inputtext p-component"
          value={value}
          disabled={disabled}
          onFocus={listRequested}
          onChange={(e) => onChoose(e.target.value)}
        >
          <option value="">None</option>
          {value !== '' && !options.includes(value) && (
            <option value={value}>{isoDisplayName(value)}</option>
          )}
          {options.map((path) => (
            <option key={path} value={path}>
              {isoDisplayName(path)}
            </option>
          ))}
        </select>
        <input
          type="search"
          className="p-inputtext p-component"
          aria-label="Search ISOs"
          placeholder="Search ISOs"
          value={term}
          disabled={disabled}
          onFocus={listRequested}
          onChange={(e) => chooser.send({ type: 'iso.termChanged', term: e.target.value })}
        />
        <label className="tp-check">
          <input
            type="checkbox"
            checked={localOnly}
            disabled={disabled}
            onChange={() => chooser.send({ type: 'iso.localToggled' })}
          />
          This workspace only
        </label>
      </div>
      {unavailable && <small className="tp-muted">The ISO list is not available.</small>}
    </div>
  );
}
