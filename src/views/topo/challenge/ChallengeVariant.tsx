import { useSelector } from '@xstate/react';
import { GRADERS, type Grader } from '../../../domain/challenge';
import {
  AddButton,
  CheckboxField,
  countAt,
  RemoveButton,
  TextField,
  useText,
  type FormProps,
} from './challengeFields';

/** spec §5, word for word. */
export const GRADER_HELP =
  'Match (exact), MatchAny (one of the pipe-delimited answers), MatchAll (all pipe-delimited answers in any order), MatchAlpha (exact after stripping symbols)';
export const WEIGHT_HELP =
  'Weight is a percentage of the total, either 0 to 1 or 0 to 100. Zero weights are shared evenly.';
/** What canary answers are for (src/domain/alerts.ts). */
export const CANARY_HELP =
  'Decoy answers no player is given, one per line (for example a fake flag planted in the lab). Submitting one alerts observers; it is graded wrong as any wrong answer.';
/** Prerequisites above 1 are read like whole-number weights (normalizePrerequisites). */
export const PREREQUISITE_HELP =
  'A fraction (0.3), or points in the units of the weights (30 of 100 is 0.3); saved as the fraction.';

const GRADER_LABELS: Record<Grader, string> = {
  match: 'Match',
  matchAny: 'MatchAny',
  matchAll: 'MatchAll',
  matchAlpha: 'MatchAlpha',
};

function GraderChoice({ form, path }: FormProps & { path: string }) {
  const grader = useText(form, path);
  return (
    <fieldset className="tp-challenge-grader">
      <legend>Grader</legend>
      {GRADERS.map((g) => (
        <label key={g}>
          <input
            type="radio"
            name={path}
            value={g}
            checked={grader === g}
            onChange={() => form.challenge.send({ type: 'challenge.fieldEdited', path, value: g })}
            onBlur={() => form.challenge.send({ type: 'challenge.fieldBlurred', path })}
          />{' '}
          {GRADER_LABELS[g]}
        </label>
      ))}
      <small className="tp-muted tp-field-hint">{GRADER_HELP}</small>
    </fieldset>
  );
}

function Question({ form, path, number }: FormProps & { path: string; number: number }) {
  return (
    <fieldset className="tp-challenge-question">
      <legend>Question {number}</legend>
      <TextField form={form} path={`${path}.text`} label="Question" multiline />
      <TextField form={form} path={`${path}.answer`} label="Answer" />
      <TextField
        form={form}
        path={`${path}.canaries`}
        label="Canary answers (one per line)"
        hint={CANARY_HELP}
        multiline
      />
      <div className="tp-challenge-row">
        <TextField form={form} path={`${path}.example`} label="Example" />
        <TextField form={form} path={`${path}.hint`} label="Hint" />
      </div>
      <div className="tp-challenge-row">
        <TextField form={form} path={`${path}.weight`} label="Weight" hint={WEIGHT_HELP} />
        <TextField form={form} path={`${path}.penalty`} label="Penalty" />
      </div>
      <CheckboxField form={form} path={`${path}.hidden`} label="Hidden" />
      <GraderChoice form={form} path={`${path}.grader`} />
      <RemoveButton
        form={form}
        path={path}
        label="Remove question"
        question={`Remove question ${number}?`}
      />
    </fieldset>
  );
}

function QuestionSet({ form, path, index }: FormProps & { path: string; index: number }) {
  const questions = useSelector(form.draft, countAt(`${path}.questions`));
  return (
    <fieldset className="tp-challenge-set">
      <legend>Question set {index + 1}</legend>
      <TextField form={form} path={`${path}.name`} label="Name" />
      <TextField form={form} path={`${path}.text`} label="Text (markdown)" multiline />
      {/* The first set is always open: the server forces its prerequisites to 0. */}
      {index > 0 && (
        <div className="tp-challenge-row">
          <TextField
            form={form}
            path={`${path}.preReqTotal`}
            label="Prerequisite: total weight scored"
            hint={PREREQUISITE_HELP}
          />
          <TextField
            form={form}
            path={`${path}.preReqPrevSection`}
            label="Prerequisite: weight scored in the previous set"
            hint={PREREQUISITE_HELP}
          />
        </div>
      )}
      {Array.from({ length: questions }, (_, q) => (
        <Question key={q} form={form} path={`${path}.questions.${q}`} number={q + 1} />
      ))}
      <div className="tp-challenge-actions">
        <AddButton form={form} list={`${path}.questions`} label="Add question" />
        <RemoveButton
          form={form}
          path={path}
          label="Remove question set"
          question={`Remove question set ${index + 1} and its questions?`}
        />
      </div>
    </fieldset>
  );
}

/** One variant: its text, ISO and question sets. */
export function Variant({ form, index }: FormProps & { index: number }) {
  const path = `variants.${index}`;
  const sections = useSelector(form.draft, countAt(`${path}.sections`));
  return (
    <fieldset className="tp-challenge-variant">
      <legend>Variant {index + 1}</legend>
      <TextField
        form={form}
        path={`${path}.text`}
        label="Variant text (markdown)"
        hint="Appended to the challenge text for players of this variant."
        multiline
      />
      <div className="tp-challenge-row">
        <TextField form={form} path={`${path}.iso.file`} label="ISO file" />
        <TextField
          form={form}
          path={`${path}.iso.targets`}
          label="ISO targets"
          hint="Space-delimited template names."
        />
      </div>
      <CheckboxField form={form} path={`${path}.iso.downloadable`} label="ISO downloadable" />
      {Array.from({ length: sections }, (_, s) => (
        <QuestionSet key={s} form={form} path={`${path}.sections.${s}`} index={s} />
      ))}
      <div className="tp-challenge-actions">
        <AddButton form={form} list={`${path}.sections`} label="Add question set" />
        <RemoveButton
          form={form}
          path={path}
          label="Remove variant"
          question={`Remove variant ${index + 1} and its question sets?`}
        />
      </div>
    </fieldset>
  );
}
