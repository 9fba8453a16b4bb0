/**
 * An inline confirmation (spec §5: remove, clone and delete are confirmed): the question, then
 * Confirm and Cancel. Cancel takes the focus, so that a stray Enter does nothing harmful.
 */
export function ConfirmPrompt({
  question,
  onConfirm,
  onCancel,
}: {
  question: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <div className="tp-confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        className="p-button p-component p-button-danger p-button-sm"
        onClick={onConfirm}
      >
        Confirm
      </button>
      <button
        type="button"
        className="p-button p-component p-button-secondary p-button-outlined p-button-sm"
        onClick={onCancel}
        autoFocus
      >
        Cancel
      </button>
    </div>
  );
}
