import { useEffect, useState } from 'react';

/**
 * An inline confirmation (spec §5: remove, clone and delete are confirmed): the question, then
 * Confirm and Cancel. Cancel takes the focus, so that a stray Enter does nothing harmful; Escape
 * cancels. When the prompt goes away, the focus goes back to the button that asked, if it is still
 * there, rather than being lost to the page.
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
  // Read while rendering, before Cancel takes the focus: the element that asked.
  const [opener] = useState(() =>
    typeof document === 'undefined' ? null : (document.activeElement as HTMLElement | null),
  );
  // A UI effect: only the view can give the focus back.
  useEffect(
    () => () => {
      const focused = document.activeElement;
      const lost = focused === null || focused === document.body;
      if (lost && opener?.isConnected) opener.focus();
    },
    [opener],
  );

  return (
    <div
      className="tp-confirm"
      role="group"
      aria-label={question}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.preventDefault();
        event.stopPropagation();
        onCancel();
      }}
    >
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
