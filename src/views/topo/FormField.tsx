import { useId, type ReactNode } from 'react';

/**
 * A labelled text field of an autosaving form: it reports each change and each blur, and shows
 * its validation message (and an optional hint) under it, tied to it for assistive technology.
 */
export function FormField({
  label,
  value,
  message,
  hint,
  multiline = false,
  type = 'text',
  disabled = false,
  onChange,
  onBlur,
}: {
  label: string;
  value: string;
  message?: string;
  hint?: ReactNode;
  multiline?: boolean;
  type?: 'text' | 'number';
  disabled?: boolean;
  onChange: (value: string) => void;
  onBlur: () => void;
}) {
  const id = useId();
  const messageId = `${id}-message`;
  const hintId = `${id}-hint`;
  const describedBy =
    [message ? messageId : null, hint ? hintId : null].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    value,
    disabled,
    'aria-invalid': message ? true : undefined,
    'aria-describedby': describedBy,
    onBlur,
  };
  return (
    <div className="tp-field">
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea
          {...common}
          className="p-inputtextarea p-inputtext p-component"
          rows={3}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <input
          {...common}
          type={type}
          className="p-inputtext p-component"
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      {message && (
        <small id={messageId} className="tp-field-message">
          {message}
        </small>
      )}
      {hint && (
        <small id={hintId} className="tp-muted tp-field-hint">
          {hint}
        </small>
      )}
    </div>
  );
}

const STATUS_TEXT: Record<string, string> = { saving: 'Saving…', saved: 'Saved' };

/** The save indicator of an autosaving form; a failure is shown as an alert. */
export function SaveStatus({ status, error }: { status: string; error: string | null }) {
  return (
    <div className="tp-save-status">
      <span role="status">{STATUS_TEXT[status] ?? ''}</span>
      {status === 'failed' && error !== null && (
        <span role="alert" className="tp-field-message">
          Not saved: {error}
        </span>
      )}
    </div>
  );
}
