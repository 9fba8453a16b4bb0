import { useSelector } from '@xstate/react';
import type { TemplateSelectorActorRef } from '../../../machines/templateSelectorMachine';
import {
  selectIsSearchingTemplates,
  selectLinkQueue,
  selectSelectorErrors,
  selectSelectorResults,
  selectSelectorTerm,
  selectTemplateSets,
} from '../../../machines/templateSelectorMachine.selectors';
import { DismissibleAlerts } from '../../common/DismissibleAlerts';
import { UnavailableMark } from '../../common/UnavailableMark';

/**
 * The template selector (spec §2): search published templates, Add one, or Add a set of one
 * source workspace's templates; link failures are listed as alerts.
 */
export function TemplateSelector({ selector }: { selector: TemplateSelectorActorRef }) {
  const term = useSelector(selector, selectSelectorTerm);
  const results = useSelector(selector, selectSelectorResults);
  const sets = useSelector(selector, selectTemplateSets);
  const queue = useSelector(selector, selectLinkQueue);
  const searching = useSelector(selector, selectIsSearchingTemplates);
  const errors = useSelector(selector, selectSelectorErrors);
  return (
    <section className="tp-panel tp-selector" aria-labelledby="tp-selector-title">
      <h2 id="tp-selector-title">Add templates</h2>
      <p className="tp-muted tp-small">
        Search for templates or template sets, then Add them; you can edit them once added.
      </p>
      <input
        type="search"
        className="p-inputtext p-component"
        aria-label="Search templates"
        placeholder="Search templates"
        value={term}
        onChange={(e) => selector.send({ type: 'selector.termChanged', term: e.target.value })}
      />
      <DismissibleAlerts
        messages={errors}
        onDismiss={(index) => selector.send({ type: 'selector.errorDismissed', index })}
      />
      {sets.length > 0 && (
        <ul className="tp-list" aria-label="Template sets">
          {sets.map((set) => (
            <li key={set.workspaceId} className="tp-list-item">
              <span>
                {set.name} <span className="tp-muted tp-small">template set of {set.count}</span>
              </span>
              <button
                type="button"
                className="p-button p-component p-button-outlined p-button-sm"
                onClick={() =>
                  selector.send({
                    type: 'selector.setAddRequested',
                    sourceWorkspaceId: set.workspaceId,
                  })
                }
              >
                Add set
              </button>
            </li>
          ))}
        </ul>
      )}
      <ul className="tp-list" aria-label="Templates to add" aria-busy={searching}>
        {results.map((template) => (
          <li
            key={template.id}
            className={
              template.unavailable ? 'tp-list-item tp-template-unavailable' : 'tp-list-item'
            }
          >
            <span>
              <span className="tp-template-name">{template.name}</span>{' '}
              {template.description && (
                <span className="tp-muted tp-small">{template.description}</span>
              )}
              {template.unavailable && (
                <>
                  {' '}
                  <UnavailableMark
                    id={`tp-unavailable-${template.id}`}
                    reason={template.unavailable}
                  />
                </>
              )}
            </span>
            {/* Still added when unavailable: linking copies nothing, and the image may come
                (npm run images); a launch that needs it says what is missing. */}
            <button
              type="button"
              className="p-button p-component p-button-outlined p-button-sm"
              aria-busy={queue.includes(template.id)}
              aria-describedby={template.unavailable ? `tp-unavailable-${template.id}` : undefined}
              onClick={() =>
                selector.send({ type: 'selector.addRequested', templateId: template.id })
              }
            >
              Add
            </button>
          </li>
        ))}
      </ul>
      {!searching && results.length === 0 && <p className="tp-muted">No templates found.</p>}
    </section>
  );
}
