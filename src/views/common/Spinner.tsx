import { Icon, piSpinner } from './icons';
/** A busy indicator with a name for assistive technology. */
export function Spinner({ label }: { label: string }) {
  return (
    <div className="tp-spinner" role="status" aria-label={label}>
      <Icon shape={piSpinner} spin />
    </div>
  );
}
