import { Icon, piRefresh, piSpinner } from '../common/icons';

/** The admin panels' Refresh: a spinner while loading, and no second load meanwhile. */
export function RefreshButton({
  loading,
  onClick,
  label,
}: {
  loading: boolean;
  onClick: () => void;
  /** The accessible name when a page has several Refresh buttons. */
  label?: string;
}) {
  return (
    <button
      type="button"
      className="p-button p-component p-button-sm p-button-text"
      aria-label={label}
      disabled={loading}
      onClick={onClick}
    >
      <Icon shape={loading ? piSpinner : piRefresh} spin={loading} />
      <span>Refresh</span>
    </button>
  );
}
