import { useSelector } from '@xstate/react';
import type { QuestionSetActorRef } from '../../machines/questionSetMachine';
import {
  selectAnswer,
  selectCanSubmit,
  selectConfirmingSection,
  selectIsAnswerReadOnly,
  selectIsGrading,
  selectIsSectionCompleted,
  selectLockedSectionNote,
  selectProgress,
  selectSectionCount,
  selectSectionError,
  selectShowSubmit,
} from '../../machines/questionSetMachine.selectors';
import { ConfirmPrompt } from '../topo/ConfirmPrompt';
import { MarkdownPreview } from '../topo/document/MarkdownPreview';

function Answer({
  quiz,
  section,
  question,
  label,
}: {
  quiz: QuestionSetActorRef;
  section: number;
  question: number;
  label: string;
}) {
  const answer = useSelector(quiz, selectAnswer(section, question));
  const readOnly = useSelector(quiz, selectIsAnswerReadOnly(section, question));
  return (
    <input
      className="p-inputtext p-component tp-quiz-answer"
      aria-label={label}
      value={answer}
      readOnly={readOnly}
      onChange={(e) =>
        quiz.send({ type: 'quiz.answerChanged', section, question, answer: e.target.value })
      }
    />
  );
}

function QuestionSet({ quiz, index }: { quiz: QuestionSetActorRef; index: number }) {
  const progress = useSelector(quiz, selectProgress);
  const completed = useSelector(quiz, selectIsSectionCompleted(index));
  const showSubmit = useSelector(quiz, selectShowSubmit(index));
  const canSubmit = useSelector(quiz, selectCanSubmit(index));
  const confirming = useSelector(quiz, selectConfirmingSection) === index;
  const error = useSelector(quiz, selectSectionError(index));
  const section = progress?.variant?.sections?.[index];
  const title = section?.name || `Question Set ${index + 1}`;
  return (
    <section className="tp-quiz-set" aria-label={title}>
      <h3>
        {title}
        {completed && <span className="tp-quiz-done"> (completed)</span>}
      </h3>
      {section?.text && <MarkdownPreview markdown={section.text} />}
      <ol>
        {(section?.questions ?? []).map((q, i) => (
          <li key={i} className={q.isCorrect ? 'tp-quiz-correct' : undefined}>
            <p>{q.text}</p>
            <Answer
              quiz={quiz}
              section={index}
              question={i}
              label={`Answer ${index + 1}.${i + 1}`}
            />
            {q.isCorrect && <span className="tp-quiz-mark"> ✓ correct</span>}
            {q.isGraded && !q.isCorrect && <span className="tp-quiz-mark"> ✗ incorrect</span>}
            {q.example && <p className="tp-muted tp-small">Example: {q.example}</p>}
          </li>
        ))}
      </ol>
      {error && (
        <p className="tp-alert tp-alert-danger" role="alert">
          {error}
        </p>
      )}
      {confirming ? (
        <ConfirmPrompt
          question={`Submit ${title}?`}
          onConfirm={() => quiz.send({ type: 'quiz.submitConfirmed' })}
          onCancel={() => quiz.send({ type: 'quiz.submitCancelled' })}
        />
      ) : (
        showSubmit && (
          <button
            type="button"
            className="p-button p-component p-button-sm"
            disabled={!canSubmit}
            onClick={() => quiz.send({ type: 'quiz.submitRequested', section: index })}
          >
            Submit
          </button>
        )
      )}
    </section>
  );
}

/** The quiz: each unlocked question set with its Submit, then the sets still locked (spec §4). */
export function QuestionSets({ quiz }: { quiz: QuestionSetActorRef }) {
  const count = useSelector(quiz, selectSectionCount);
  const lockedNote = useSelector(quiz, selectLockedSectionNote);
  const grading = useSelector(quiz, selectIsGrading);
  return (
    <div className="tp-quiz" aria-busy={grading}>
      {Array.from({ length: count }, (_, i) => (
        <QuestionSet key={i} quiz={quiz} index={i} />
      ))}
      {lockedNote && <p className="tp-muted">{lockedNote}</p>}
    </div>
  );
}
