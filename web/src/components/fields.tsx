// Form fields that carry their label, hint and error: the error sits beside the field, is tied to it
// with aria-describedby, and marks it aria-invalid.
import type { ComponentChildren, JSX } from 'preact';

interface FieldBase {
  id: string;
  label: string;
  hint?: ComponentChildren;
  error?: string | undefined;
}

function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length > 0 ? ids.join(' ') : undefined;
}

function Messages({ id, hint, error }: { id: string; hint?: ComponentChildren; error?: string | undefined }) {
  return (
    <>
      {hint ? <p id={`${id}-hint`} class="hint">{hint}</p> : null}
      <p id={`${id}-error`} class="field-error" aria-live="polite">{error ?? ''}</p>
    </>
  );
}

type InputProps = FieldBase & Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onInput'> & {
  value: string;
  onValue: (value: string) => void;
};

export function TextField({ id, label, hint, error, value, onValue, ...rest }: InputProps) {
  return (
    <div class={`field${error ? ' has-error' : ''}`}>
      <label for={id}>{label}</label>
      <input
        {...rest}
        id={id}
        name={rest.name ?? id}
        value={value}
        onInput={(e) => onValue((e.currentTarget as HTMLInputElement).value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(id, hint, error)}
      />
      <Messages id={id} hint={hint} error={error} />
    </div>
  );
}

type AreaProps = FieldBase & Omit<JSX.TextareaHTMLAttributes<HTMLTextAreaElement>, 'id' | 'value' | 'onInput'> & {
  value: string;
  onValue: (value: string) => void;
};

export function TextArea({ id, label, hint, error, value, onValue, ...rest }: AreaProps) {
  return (
    <div class={`field${error ? ' has-error' : ''}`}>
      <label for={id}>{label}</label>
      <textarea
        {...rest}
        id={id}
        name={rest.name ?? id}
        value={value}
        onInput={(e) => onValue((e.currentTarget as HTMLTextAreaElement).value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(id, hint, error)}
      />
      <Messages id={id} hint={hint} error={error} />
    </div>
  );
}

type SelectProps = FieldBase & {
  value: string;
  onValue: (value: string) => void;
  options: Array<{ value: string; label: string }>;
  required?: boolean;
  disabled?: boolean;
};

export function SelectField({ id, label, hint, error, value, onValue, options, required, disabled }: SelectProps) {
  return (
    <div class={`field${error ? ' has-error' : ''}`}>
      <label for={id}>{label}</label>
      <select
        id={id}
        name={id}
        value={value}
        required={required}
        disabled={disabled}
        onChange={(e) => onValue((e.currentTarget as HTMLSelectElement).value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(id, hint, error)}
      >
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
      <Messages id={id} hint={hint} error={error} />
    </div>
  );
}

type CheckboxProps = FieldBase & { checked: boolean; onChecked: (checked: boolean) => void };

export function Checkbox({ id, label, hint, error, checked, onChecked }: CheckboxProps) {
  return (
    <div class={`field checkbox${error ? ' has-error' : ''}`}>
      <input
        type="checkbox"
        id={id}
        name={id}
        checked={checked}
        onChange={(e) => onChecked((e.currentTarget as HTMLInputElement).checked)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(id, hint, error)}
      />
      <label for={id}>{label}</label>
      <Messages id={id} hint={hint} error={error} />
    </div>
  );
}

/** The form-level outcome: an alert for failures (with field errors no input shows), a status for success. */
export function FormMessage({ error, extra, success }: { error?: string | null | undefined; extra?: string[]; success?: string | null | undefined }) {
  if (error) {
    return (
      <div class="notice error" role="alert">
        <p>{error}</p>
        {extra && extra.length > 0 ? <ul>{extra.map((e) => <li key={e}>{e}</li>)}</ul> : null}
      </div>
    );
  }
  return <div class="notice success" role="status" aria-live="polite" hidden={!success}>{success ?? ''}</div>;
}
