import './unavailable.css';

/**
 * Marks a template the hypervisor cannot run (its summary's `unavailable`): a tag "Unavailable"
 * whose tooltip, and the text beside it, say why. `id` lets a button name the reason as its
 * description.
 */
export function UnavailableMark({ id, reason }: { id: string; reason: string }) {
  return (
    <span className="tp-unavailable">
      <span className="tp-unavailable-tag" title={reason}>
        Unavailable
      </span>{' '}
      <span id={id} className="tp-unavailable-reason tp-small">
        {reason}
      </span>
    </span>
  );
}
