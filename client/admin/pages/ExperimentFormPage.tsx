/**
 * An experiment's form, for ops (issue 45): id (on create), name, hypothesis, primary metric, the
 * sources it includes, start and stop (UTC, as every time in the console), and up to five variant
 * rows of id, name, share and, for each thing a variant may change (shared/experiments.ts KNOBS), a
 * field typed by it: text, or unchanged/yes/no. The first row is the control: it changes nothing,
 * so it has no such fields. A wrong form comes back 422 with each problem beside its field; an
 * edit carries its revision (409 when someone else saved first). Once started, only the name,
 * hypothesis and stop are fields: the rest is shown as it is.
 */
import { adminPaths, EXPERIMENT_VARIANT_ROWS as VARIANT_ROWS, experimentKnobField as knobField, experimentPaths, PRIMARY_METRIC_WORDS as METRIC_WORDS, type ExperimentFormView } from "../../../shared/admin-views";
import { KNOB_NAMES, KNOBS, PRIMARY_METRICS, type KnobName } from "../../../shared/experiments";
import { AdminLayout } from "../AdminLayout";
import { CsrfField } from "../CsrfField";
import { ErrorSummary, fieldId, Group, SelectField, TextAreaField, TextField, type FormState } from "../SettingsFields";
import { ExperimentFacts } from "./ExperimentDetailPage";

const TIME_HINT = "UTC, to the minute.";

function labels(): Record<string, string> {
  const names: Record<string, string> = { id: "Id", name: "Name", hypothesis: "Hypothesis", primaryMetric: "Primary metric", sids: "Sources (sid)", startAt: "Start (UTC)", stopAt: "Stop (UTC)", variants: "Variants" };
  for (let row = 0; row < VARIANT_ROWS; row += 1) {
    const variant = row === 0 ? "Control" : `Variant ${row + 1}`;
    Object.assign(names, { [`variants.${row}`]: variant, [`variants.${row}.id`]: `${variant} id`, [`variants.${row}.name`]: `${variant} name`, [`variants.${row}.share`]: `${variant} share` });
    for (const knob of KNOB_NAMES) names[knobField(row, knob)] = `${variant}: ${KNOBS[knob].label}`;
  }
  return names;
}

/** A datetime-local control framed as the other fields are: label, hint, the control, its problem. */
function DateTimeField({ state, name, label, hint, required }: { state: FormState; name: string; label: string; hint: string; required?: boolean }) {
  const id = fieldId(name);
  const error = state.errors[name];
  const value = state.values[name];
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <p id={`${id}-hint`} className="hint">
        {hint}
      </p>
      <input
        id={id}
        name={name}
        type="datetime-local"
        defaultValue={Array.isArray(value) ? (value[0] ?? "") : (value ?? "")}
        required={required}
        aria-invalid={error ? true : undefined}
        aria-describedby={[`${id}-hint`, error ? `${id}-error` : ""].filter(Boolean).join(" ")}
      />
      {error ? (
        <p id={`${id}-error`} className="field-error">
          <strong>Error:</strong> {error}
        </p>
      ) : null}
    </div>
  );
}

function KnobControl({ state, row, knob }: { state: FormState; row: number; knob: KnobName }) {
  const { label, control } = KNOBS[knob];
  if (typeof control === "boolean") {
    return <SelectField state={state} name={knobField(row, knob)} label={label} options={[["", `Unchanged (the control's: ${control ? "yes" : "no"})`], ["yes", "Yes"], ["no", "No"]]} />;
  }
  return <TextField state={state} name={knobField(row, knob)} label={label} hint={`Empty: unchanged (the control's “${String(control)}”).`} wide />;
}

function VariantRow({ state, row }: { state: FormState; row: number }) {
  const control = row === 0;
  return (
    <Group state={state} name={`variants.${row}`} legend={control ? "Control (variant 1)" : `Variant ${row + 1}`} hint={control ? "What visitors see without the experiment: it changes nothing." : "Leave the row empty for no variant; a variant changes at least one thing."}>
      <TextField state={state} name={`variants.${row}.id`} label="Id" hint="Lower-case letters, digits and -." />
      <TextField state={state} name={`variants.${row}.name`} label="Name" />
      <TextField state={state} name={`variants.${row}.share`} label="Share (%)" inputMode="numeric" />
      {control ? null : KNOB_NAMES.map((knob) => <KnobControl key={knob} state={state} row={row} knob={knob} />)}
    </Group>
  );
}

export function ExperimentFormPage({ view }: { view: ExperimentFormView }) {
  const state: FormState = { values: view.values, errors: view.errors };
  const creating = view.mode === "create";
  const paths = view.key ? experimentPaths(view.key) : undefined;
  const action = creating || !paths ? adminPaths.experiments : paths.save;
  const title = creating ? "New experiment" : `Edit experiment ${view.key ?? ""}`;
  return (
    <AdminLayout session={view.session} flash={view.flash} current="experiments">
      <p className="breadcrumb">
        <a href={adminPaths.experiments}>Experiments</a>
        {paths ? (
          <>
            {" "}
            / <a href={paths.detail}>{view.key}</a>
          </>
        ) : null}
      </p>
      <h1>{title}</h1>
      {view.conflict ? (
        <p className="flash flash-error" role="alert">
          <strong>Not saved:</strong> someone else changed this experiment (now revision {view.conflict.currentRevision}). {paths ? <a href={paths.edit}>Open the current version</a> : null}
        </p>
      ) : null}
      <ErrorSummary errors={view.errors} labels={labels()} />
      <form method="post" action={action} className="settings-form experiment-form" noValidate>
        {view.session ? <CsrfField token={view.session.csrfToken} /> : null}
        {view.revision !== undefined ? <input type="hidden" name="revision" value={view.revision} /> : null}
        <Group state={state} legend="The experiment">
          {creating ? <TextField state={state} name="id" label="Id" hint="Lower-case letters, digits and -, at most 40; it never changes (visitors are assigned by it)." required /> : null}
          <TextField state={state} name="name" label="Name" required />
          <TextAreaField state={state} name="hypothesis" label="Hypothesis" hint="What the change should do and why, written before it starts." />
          {view.started ? null : (
            <>
              <SelectField state={state} name="primaryMetric" label="Primary metric" hint="The verdict is about this one, fixed before the start." options={PRIMARY_METRICS.map((metric) => [metric, METRIC_WORDS[metric]] as const)} />
              <TextField state={state} name="sids" label="Sources (sid)" hint="The traffic sources it includes, separated by commas or spaces. Empty: every visitor." wide />
              <DateTimeField state={state} name="startAt" label="Start (UTC)" hint={`Visitors are assigned from then, once it is started. ${TIME_HINT}`} required />
            </>
          )}
          <DateTimeField state={state} name="stopAt" label="Stop (UTC)" hint={`Optional: everyone sees the control from then. ${TIME_HINT}`} />
        </Group>
        {view.started ? (
          <section aria-labelledby="fixed-title">
            <h2 id="fixed-title">Fixed since it started</h2>
            <p className="hint">Its variants, shares, what they change, sources, primary metric and start define who saw what: a change would mix two experiments in one result. Create a new experiment instead.</p>
            <ExperimentFacts experiment={view.started} />
          </section>
        ) : (
          <Group state={state} name="variants" legend="Variants" hint="Up to five. Shares are whole percents that add up to 100. Two experiments that are not stopped may not change the same thing for the same sources.">
            {Array.from({ length: VARIANT_ROWS }, (_, row) => (
              <VariantRow key={row} state={state} row={row} />
            ))}
          </Group>
        )}
        <p className="form-actions">
          <button type="submit" className="button">
            {creating ? "Create experiment" : "Save experiment"}
          </button>{" "}
          <a href={paths ? paths.detail : adminPaths.experiments}>Cancel</a>
        </p>
      </form>
    </AdminLayout>
  );
}
