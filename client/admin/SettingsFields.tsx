/**
 * The controls of the buyer and source forms: every input labelled, a hint and a problem linked
 * to it with aria-describedby (the problem also sets aria-invalid), checkbox groups and related
 * fields in fieldsets with legends. The values are the form as sent (or as stored), so a form
 * answered 422 comes back filled in; no client script is needed.
 */
import type { ReactNode } from "react";
import type { FormValues } from "../../shared/admin-views";

/** A field's element id from its name ("filters.driverAge.min" → "f-filters-driverAge-min"). */
export const fieldId = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, "-")}`;

export interface FormState {
  values: FormValues;
  errors: Record<string, string>;
}

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? (value[0] ?? "") : (value ?? ""));
const many = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** What describes a control: its hint and its problem, by id. */
function describedBy(id: string, hint: ReactNode, error: string | undefined): string | undefined {
  return [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
}

function Problem({ id, error }: { id: string; error: string | undefined }) {
  return error ? (
    <p id={`${id}-error`} className="field-error">
      <strong>Error:</strong> {error}
    </p>
  ) : null;
}

interface FieldProps {
  state: FormState;
  name: string;
  label: string;
  hint?: ReactNode;
}

function Hint({ id, hint }: { id: string; hint: ReactNode }) {
  return hint ? (
    <p id={`${id}-hint`} className="hint">
      {hint}
    </p>
  ) : null;
}

/** What every labelled control shares: its id, its problem, the attributes that link them, and its frame (label, hint, the control, the problem). */
function fieldParts({ state, name, hint }: Pick<FieldProps, "state" | "name" | "hint">) {
  const id = fieldId(name);
  const error = state.errors[name];
  const linked = { id, name, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy(id, hint, error) } as const;
  return { id, error, linked };
}

function Framed({ id, label, hint, error, wide, children }: { id: string; label: string; hint: ReactNode; error: string | undefined; wide?: boolean | undefined; children: ReactNode }) {
  return (
    <div className={wide ? "field field-wide" : "field"}>
      <label htmlFor={id}>{label}</label>
      <Hint id={id} hint={hint} />
      {children}
      <Problem id={id} error={error} />
    </div>
  );
}

export function TextField({ state, name, label, hint, type = "text", inputMode, required, wide }: FieldProps & { type?: "text" | "url" | "tel"; inputMode?: "decimal" | "numeric" | "text"; required?: boolean; wide?: boolean }) {
  const { id, error, linked } = fieldParts({ state, name, hint });
  return (
    <Framed id={id} label={label} hint={hint} error={error} wide={wide}>
      <input {...linked} type={type} inputMode={inputMode} defaultValue={one(state.values[name])} required={required} />
    </Framed>
  );
}

export function TextAreaField({ state, name, label, hint }: FieldProps) {
  const { id, error, linked } = fieldParts({ state, name, hint });
  return (
    <Framed id={id} label={label} hint={hint} error={error} wide>
      <textarea {...linked} rows={2} defaultValue={one(state.values[name])} />
    </Framed>
  );
}

export function SelectField({ state, name, label, hint, options }: FieldProps & { options: readonly (readonly [value: string, label: string])[] }) {
  const { id, error, linked } = fieldParts({ state, name, hint });
  return (
    <Framed id={id} label={label} hint={hint} error={error}>
      <select {...linked} defaultValue={one(state.values[name]) || options[0]?.[0]}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </Framed>
  );
}

/** One checkbox whose value is `value` when ticked ("yes" for a flag). */
export function CheckField({ state, name, label, hint, value = "yes" }: FieldProps & { value?: string }) {
  const { id, error, linked } = fieldParts({ state, name, hint });
  return (
    <div className="field">
      <div className="field-check">
        <input {...linked} type="checkbox" value={value} defaultChecked={many(state.values[name]).includes(value)} />
        <label htmlFor={id}>{label}</label>
      </div>
      <Hint id={id} hint={hint} />
      <Problem id={id} error={error} />
    </div>
  );
}

/** A group of checkboxes sending `name` once per ticked option, in a fieldset named by its legend. */
export function CheckGroup({ state, name, label, hint, options, compact }: FieldProps & { options: readonly (readonly [value: string, label: string])[]; compact?: boolean }) {
  const id = fieldId(name);
  const error = state.errors[name];
  const checked = new Set(many(state.values[name]));
  return (
    <fieldset id={id} className={compact ? "check-group check-group-compact" : "check-group"} aria-describedby={describedBy(id, hint, error)}>
      <legend>{label}</legend>
      <Hint id={id} hint={hint} />
      <Problem id={id} error={error} />
      <div className="check-options">
        {options.map(([value, text]) => (
          <div className="field-check" key={value}>
            <input id={`${id}-${value}`} type="checkbox" name={name} value={value} defaultChecked={checked.has(value)} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} />
            <label htmlFor={`${id}-${value}`}>{text}</label>
          </div>
        ))}
      </div>
    </fieldset>
  );
}

/** A fieldset of related fields; a problem of the group itself ("min must not be more than max") is shown under its legend. */
export function Group({ state, name, legend, hint, children }: { state: FormState; name?: string; legend: string; hint?: ReactNode; children: ReactNode }) {
  const id = name ? fieldId(name) : undefined;
  const error = name ? state.errors[name] : undefined;
  return (
    <fieldset className="form-group" id={id} aria-describedby={id ? describedBy(id, hint, error) : undefined}>
      <legend>{legend}</legend>
      {id ? <Hint id={id} hint={hint} /> : hint ? <p className="hint">{hint}</p> : null}
      {id ? <Problem id={id} error={error} /> : null}
      <div className="form-grid">{children}</div>
    </fieldset>
  );
}

/**
 * Every problem of the form at its top, each a link to its field, so a keyboard or screen reader
 * user hears how many there are and can go to each; "" is a problem of the whole form.
 */
export function ErrorSummary({ errors, labels }: { errors: Record<string, string>; labels?: Record<string, string> }) {
  const entries = Object.entries(errors);
  if (entries.length === 0) return null;
  return (
    <div className="form-errors" role="alert" aria-labelledby="form-errors-title">
      <p id="form-errors-title">
        <strong>{entries.length === 1 ? "There is a problem with the form:" : `There are ${entries.length} problems with the form:`}</strong>
      </p>
      <ul>
        {entries.map(([name, message]) => (
          <li key={name || "form"}>
            {name ? (
              <a href={`#${fieldId(name)}`}>
                {labels?.[name] ?? name}: {message}
              </a>
            ) : (
              message
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
