import { useSelector } from '@xstate/react';
import { useMemo, type MouseEvent } from 'react';
import { flushSync } from 'react-dom';
import {
  mathRandom,
  resolveValue,
  transformValueMessage,
  type TransformContext,
} from '../../../domain/transforms';
import type { AutosaveFormActorRef } from '../../../machines/autosaveFormMachine';
import type { ChallengeFormActorRef } from '../../../machines/challengeFormMachine';
import {
  countMessages,
  selectCanRetry,
  selectChallengeDraftForm,
  selectChallengeError,
  selectChallengeFormActor,
  selectChallengeLoadError,
  selectChallengeLoadStatus,
  selectChallengeMessages,
  selectChallengeSaveStatus,
  selectFreshItems,
} from '../../../machines/challengeFormMachine.selectors';
import type { WorkspaceEditorActorRef } from '../../../machines/workspaceEditorMachine';
import { Spinner } from '../../common/Spinner';
import {
  AddButton,
  countAt,
  RemoveButton,
  TextField,
  useText,
  type FormProps,
} from './challengeFields';
import { Variant } from './ChallengeVariant';

/** spec §5: the transform value format, its types, built-in names and examples. */
export const TRANSFORM_HELP = [
  'Value format is type:range. The type is one of hex, b64, int, uid, list, index; the range is optional.',
  'Examples: hex (8 chars), b64 (24 chars), int, uid (GUID), hex:12, b64:16, int:99-999, list:a b c, list:2:a b c (keys key_1, key_2), index:3:list.',
  'Built-in names: id, variant, app_url, topomojo_url, grader_url, api_key and grader_key (the last two not for participants), ipv4:{cidr}.',
  'Placeholders are written ##key## and are replaced at deploy time in guest settings, challenge text, questions and answers.',
];

/** What the preview resolves built-in names with: a made-up gamespace. */
const PREVIEW_CONTEXT: TransformContext = {
  gamespaceId: '0123456789abcdef0123456789abcdef',
  variant: 0,
  graderUrl: `${typeof location === 'undefined' ? '' : location.origin}/api/gamespace/grade`,
  graderKey: '(grader key)',
};

/** An example of what the value generates, new for each change of the value. */
function TransformPreview({ form, path }: FormProps & { path: string }) {
  const value = useText(form, path);
  const example = useMemo(
    () =>
      transformValueMessage(value) === null
        ? resolveValue(value.trim(), PREVIEW_CONTEXT, mathRandom)
        : null,
    [value],
  );
  if (example === null) return null;
  return (
    <small className="tp-muted tp-challenge-preview" aria-live="polite">
      Example: <code>{example}</code>
    </small>
  );
}

function Transforms({ form }: FormProps) {
  const count = useSelector(form.draft, countAt('transforms'));
  return (
    <fieldset className="tp-challenge-transforms">
      <legend>Transforms</legend>
      <div className="tp-muted tp-field-hint">
        {TRANSFORM_HELP.map((line) => (
          <p key={line}>{line}</p>
        ))}
      </div>
      {Array.from({ length: count }, (_, i) => (
        <div
          key={i}
          className="tp-challenge-transform"
          role="group"
          aria-label={`Transform ${i + 1}`}
        >
          <TextField form={form} path={`transforms.${i}.key`} label="Key" />
          <div>
            <TextField form={form} path={`transforms.${i}.value`} label="Value" />
            <TransformPreview form={form} path={`transforms.${i}.value`} />
          </div>
          <RemoveButton
            form={form}
            path={`transforms.${i}`}
            label="Remove transform"
            question={`Remove transform ${i + 1}?`}
          />
        </div>
      ))}
      <AddButton form={form} list="transforms" label="Add transform" />
    </fieldset>
  );
}

const STATUS_TEXT: Record<string, string> = {
  // The bar stays at the top of the tab: before any change it says how saving works.
  clean: 'Changes are saved as you make them.',
  unsaved: 'Unsaved changes',
  saving: 'Saving…',
  saved: 'Saved',
};

/**
 * Why an invalid draft is not saved. The indicator stays at the top of the view while the fields
 * scroll, so it names no direction; new items' untouched fields have no mark yet.
 */
export function invalidStatusText({ shown }: { shown: number }): string {
  if (shown === 0) return 'Not saved: new items have fields to fill in.';
  return shown === 1
    ? 'Not saved: correct the field marked in error.'
    : `Not saved: correct the ${shown} fields marked in error.`;
}

/** The save indicator; an invalid draft offers to show its errors, a failure a retry. */
function SaveIndicator({ form }: FormProps) {
  const status = useSelector(form.draft, selectChallengeSaveStatus);
  const error = useSelector(form.draft, selectChallengeError);
  const canRetry = useSelector(form.draft, selectCanRetry);
  const messages = useSelector(form.draft, selectChallengeMessages);
  const fresh = useSelector(form.challenge, selectFreshItems);
  // Every message shows once the save is asked for; rendered at once so the first can be focused.
  const showErrors = (e: MouseEvent<HTMLButtonElement>) => {
    const element = e.currentTarget.closest('form');
    flushSync(() => form.challenge.send({ type: 'challenge.saveRequested' }));
    element?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  };
  return (
    <div className="tp-save-status tp-challenge-status">
      <span role="status">
        {status === 'invalid'
          ? invalidStatusText(countMessages(messages, fresh))
          : (STATUS_TEXT[status] ?? '')}
      </span>
      {status === 'invalid' && (
        <button
          type="button"
          className="p-button p-component p-button-sm p-button-text"
          onClick={showErrors}
        >
          Show fields to correct
        </button>
      )}
      {status === 'failed' && (
        <span role="alert" className="tp-field-message">
          Not saved: {error}{' '}
          <button
            type="button"
            className="p-button p-component p-button-sm p-button-outlined"
            disabled={!canRetry}
            onClick={() => form.challenge.send({ type: 'challenge.retryRequested' })}
          >
            Retry
          </button>
        </span>
      )}
    </div>
  );
}

/** The loaded spec's fields: text, transforms and variants. */
function ChallengeFields({
  challenge,
  draft,
}: {
  challenge: ChallengeFormActorRef;
  draft: AutosaveFormActorRef;
}) {
  const form = useMemo(() => ({ challenge, draft }), [challenge, draft]);
  const variants = useSelector(draft, countAt('variants'));
  return (
    <form
      className="tp-form tp-challenge"
      aria-label="Challenge"
      onSubmit={(e) => e.preventDefault()}
    >
      <SaveIndicator form={form} />
      <TextField form={form} path="text" label="Challenge text (markdown)" multiline />
      <Transforms form={form} />
      {Array.from({ length: variants }, (_, v) => (
        <Variant key={v} form={form} index={v} />
      ))}
      <AddButton form={form} list="variants" label="Add variant" />
    </form>
  );
}

/** The challenge form: text, transforms and variants (spec §2 Challenge tab, §3, §5). */
export function ChallengeForm({ form }: { form: ChallengeFormActorRef }) {
  const status = useSelector(form, selectChallengeLoadStatus);
  const error = useSelector(form, selectChallengeLoadError);
  const draft = useSelector(form, selectChallengeDraftForm);
  if (status === 'loading') return <Spinner label="Loading challenge" />;
  if (status === 'loadFailed') {
    return (
      <div role="alert" className="tp-challenge-error">
        <p>The challenge could not be loaded: {error}</p>
        <button
          type="button"
          className="p-button p-component p-button-sm"
          onClick={() => form.send({ type: 'challenge.retryRequested' })}
        >
          Retry
        </button>
      </div>
    );
  }
  return draft ? <ChallengeFields challenge={form} draft={draft} /> : null;
}

/** The workspace's Challenge section (spec §2 Workspace editor). */
export default function ChallengeSection({ editor }: { editor: WorkspaceEditorActorRef }) {
  const form: ChallengeFormActorRef | undefined = useSelector(editor, selectChallengeFormActor);
  return <div className="tp-challenge-tab">{form && <ChallengeForm form={form} />}</div>;
}
