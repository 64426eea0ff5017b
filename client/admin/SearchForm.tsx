/**
 * A page's one-field lookup (a click id on the journey page, a lead reference on the leads page):
 * a GET form, so the result has an address to share and the back button works; the error, when
 * the server refused the value, announced as an alert right under it.
 */
export interface SearchFormProps {
  action: string;
  /** The input's id (its label points at it) and the query parameter's name. */
  id: string;
  name: string;
  label: string;
  value: string | undefined;
  maxLength: number;
  button: string;
  error: string | undefined;
}

export function SearchForm({ action, id, name, label, value, maxLength, button, error }: SearchFormProps) {
  return (
    <>
      <form method="get" action={action} className="query-form">
        <div className="field">
          <label htmlFor={id}>{label}</label>
          <input id={id} type="text" name={name} defaultValue={value ?? ""} required maxLength={maxLength} autoComplete="off" spellCheck={false} />
        </div>
        <div className="field field-submit">
          <button type="submit" className="button">
            {button}
          </button>
        </div>
      </form>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}
