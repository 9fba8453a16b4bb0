import { useSelector } from '@xstate/react';
import type {
  TemplateDetailActorRef,
  TemplateDetailValues,
} from '../../machines/templateDetailMachine';
import {
  selectBusy,
  selectCanSave,
  selectDetailError,
  selectIsLinked,
  selectLoaded,
  selectProblem,
  selectSavedName,
  selectValues,
} from '../../machines/templateManagerMachine.selectors';
import { firmwareOf, withFirmware, type TemplateFirmware } from '../../domain/templateFirmware';

// The selected template's detail (wire reference §2.4 TemplateDetail): its fields, the VmTemplate
// JSON it deploys, and Published. Problems show as they are typed; Save waits until there are none.

const TEXT_FIELDS = [
  ['name', 'Name'],
  ['description', 'Description'],
  ['audience', 'Audience'],
  ['networks', 'Networks'],
] as const satisfies readonly (readonly [keyof TemplateDetailValues, string])[];

export function TemplateDetailForm({ detail }: { detail: TemplateDetailActorRef }) {
  const values = useSelector(detail, selectValues);
  const problem = useSelector(detail, selectProblem);
  const error = useSelector(detail, selectDetailError);
  const busy = useSelector(detail, selectBusy);
  const loaded = useSelector(detail, selectLoaded);
  const canSave = useSelector(detail, selectCanSave);
  const isLinked = useSelector(detail, selectIsLinked);
  const savedName = useSelector(detail, selectSavedName);
  const edit = (changes: Partial<TemplateDetailValues>) =>
    detail.send({ type: 'detail.edited', changes });

  if (!loaded) return <p aria-busy="true">Loading the template…</p>;
  return (
    <form
      className="tp-form tp-template-detail"
      aria-label={`Template ${savedName}`}
      aria-busy={busy}
      onSubmit={(e) => {
        e.preventDefault();
        detail.send({ type: 'detail.saveRequested' });
      }}
    >
      <h3>{savedName}</h3>
      {TEXT_FIELDS.map(([field, label]) => (
        <label key={field} className="tp-field">
          {label}
          <input
            value={values[field] as string}
            onChange={(e) => edit({ [field]: e.target.value })}
          />
        </label>
      ))}
      <label className="tp-field">
        Guest settings
        <textarea
          rows={3}
          value={values.guestinfo}
          onChange={(e) => edit({ guestinfo: e.target.value })}
        />
      </label>
      <label className="tp-field">
        Detail (VmTemplate JSON)
        <textarea
          rows={14}
          spellCheck={false}
          value={values.detail}
          placeholder={isLinked ? 'Linked: the parent template’s detail is used.' : undefined}
          aria-invalid={problem !== null}
          aria-describedby="template-detail-problem"
          onChange={(e) => edit({ detail: e.target.value })}
        />
      </label>
      <p id="template-detail-problem" role="alert" className="tp-field-message">
        {problem}
      </p>
      <label className="tp-field">
        Firmware
        <select
          value={firmwareOf(values.detail) ?? 'bios'}
          disabled={firmwareOf(values.detail) === null}
          onChange={(e) =>
            edit({ detail: withFirmware(values.detail, e.target.value as TemplateFirmware) })
          }
        >
          <option value="bios">BIOS</option>
          <option value="uefi">UEFI</option>
        </select>
      </label>
      <label className="tp-check">
        <input
          type="checkbox"
          checked={values.isPublished}
          onChange={(e) => edit({ isPublished: e.target.checked })}
        />
        Published (every author may link it)
      </label>
      {error && (
        <p role="alert" className="tp-field-message">
          {error}
        </p>
      )}
      <div>
        <button type="submit" disabled={!canSave}>
          Save
        </button>
      </div>
    </form>
  );
}
