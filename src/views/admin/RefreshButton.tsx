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
      <i className={`pi ${loading ? 'pi-spin pi-spinner' : 'pi-refresh'}`} aria-hidden="true" />
      <span>Refresh</span>
    </button>
  );
}
