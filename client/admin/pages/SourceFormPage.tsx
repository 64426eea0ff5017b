/**
 * A traffic source's form, for ops: sid (on create), name, payout, floor and postback URL. A
 * wrong one comes back 422 with each problem beside its field; an edit carries its revision (409
 * when someone else saved first).
 */
import { adminPaths, sourcePaths, type SourceFormView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { CsrfField } from "../CsrfField";
import { ErrorSummary, Group, TextField, type FormState } from "../SettingsFields";

const LABELS: Record<string, string> = { sid: "Sid", name: "Name", payout: "Payout", floor: "Floor", postbackUrl: "Postback URL" };

export function SourceFormPage({ view }: { view: SourceFormView }) {
  const state: FormState = { values: view.values, errors: view.errors };
  const creating = view.mode === "create";
  const action = creating || !view.key ? adminPaths.sources : sourcePaths(view.key).save;
  return (
    <AdminLayout session={view.session} flash={view.flash} current="sources">
      <p className="breadcrumb">
        <a href={adminPaths.sources}>Sources</a>
        {view.key ? (
          <>
            {" "}
            / <a href={sourcePaths(view.key).detail}>{view.key}</a>
          </>
        ) : null}
      </p>
      <h1>{creating ? "New source" : `Edit source ${view.key ?? ""}`}</h1>
      {view.conflict ? (
        <p className="flash flash-error" role="alert">
          <strong>Not saved:</strong> someone else changed this source (now revision {view.conflict.currentRevision}).{" "}
          {view.key ? <a href={sourcePaths(view.key).edit}>Open the current version</a> : null}
        </p>
      ) : null}
      <ErrorSummary errors={view.errors} labels={LABELS} />
      <form method="post" action={action} className="settings-form" noValidate>
        {view.session ? <CsrfField token={view.session.csrfToken} /> : null}
        {view.revision !== undefined ? <input type="hidden" name="revision" value={view.revision} /> : null}
        <Group state={state} legend="The source">
          {creating ? <TextField state={state} name="sid" label="Sid" hint="As it arrives in the campaign link's sid; it never changes." required /> : null}
          <TextField state={state} name="name" label="Name" />
          <TextField state={state} name="payout" label="Payout per sold lead ($)" inputMode="decimal" required />
          <TextField state={state} name="floor" label="Auction floor ($)" inputMode="decimal" />
          <TextField state={state} name="postbackUrl" label="Postback URL" type="url" hint="Must contain {tid}; may use {payout} and {status}." wide />
        </Group>
        <p className="form-actions">
          <button type="submit" className="button">
            {creating ? "Create source" : "Save source"}
          </button>{" "}
          <a href={view.key ? sourcePaths(view.key).detail : adminPaths.sources}>Cancel</a>
        </p>
      </form>
    </AdminLayout>
  );
}
