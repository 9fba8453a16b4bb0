import { Icon, piTimes } from './icons';
/** Danger alerts that the user closes one by one (spec §8, 'Dismissible danger alerts'). */
export function DismissibleAlerts({
  messages,
  onDismiss,
}: {
  messages: readonly string[];
  onDismiss: (index: number) => void;
}) {
  if (messages.length === 0) return null;
  return (
    <ul className="tp-alerts">
      {messages.map((message, index) => (
        <li key={`${index}:${message}`} className="tp-alert tp-alert-danger" role="alert">
          <span>{message}</span>
          <button
            type="button"
            className="tp-alert-close"
            aria-label="Dismiss"
            onClick={() => onDismiss(index)}
          >
            <Icon shape={piTimes} />
          </button>
        </li>
      ))}
    </ul>
  );
}
