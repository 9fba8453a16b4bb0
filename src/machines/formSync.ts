/**
 * How the autosaving forms (workspace settings, templates) keep local edits and the server's copy
 * apart. `saved` is the server's copy as last known; `values` is what the form shows.
 */

/** The form shows something the server does not have yet. */
export function hasChanges<V extends object>(values: V, saved: V): boolean {
  return (Object.keys(values) as Array<keyof V>).some((field) => values[field] !== saved[field]);
}

/**
 * A remote update (another user's save, or the echo of our own) against local edits. A field the
 * user has changed and not yet saved (`values` differs from `saved`) is mid-edit: it keeps the
 * user's value, which is saved on the next blur (the user's edit is the latest). Every other
 * field, the focused one included while it is unchanged, shows the remote value. The remote copy
 * becomes `saved`. Unchanged objects are returned as they were, so selectors stay stable.
 */
export function mergeRemote<V extends object>(
  values: V,
  saved: V,
  remote: V,
): { values: V; saved: V } {
  const merged = { ...values };
  let valuesChanged = false;
  for (const field of Object.keys(values) as Array<keyof V>) {
    if (values[field] === saved[field] && values[field] !== remote[field]) {
      merged[field] = remote[field];
      valuesChanged = true;
    }
  }
  return {
    values: valuesChanged ? merged : values,
    saved: hasChanges(saved, remote) ? remote : saved,
  };
}
