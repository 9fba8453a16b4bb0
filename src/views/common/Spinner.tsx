/** A busy indicator with a name for assistive technology. */
export function Spinner({ label }: { label: string }) {
  return (
    <div className="tp-spinner" role="status" aria-label={label}>
      <i className="pi pi-spin pi-spinner" aria-hidden="true" />
    </div>
  );
}
