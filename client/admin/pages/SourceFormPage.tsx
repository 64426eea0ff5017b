/**
 * A traffic source's form, for ops: sid (on create), name, payout, floor and postback URL. A
 * wrong one comes back 422 with each problem beside its field; an edit carries its revision (409
 * when someone else saved first).
 */
import { adminPaths, sourcePaths, type SourceFormView } from "../../../shared/admin-views";
import { Group, TextField, type FormState } from "../SettingsFields";
import { SettingsFormPage } from "../SettingsParts";

const LABELS: Record<string, string> = { sid: "Sid", name: "Name", payout: "Payout", floor: "Floor", postbackUrl: "Postback URL" };

export function SourceFormPage({ view }: { view: SourceFormView }) {
  const state: FormState = { values: view.values, errors: view.errors };
  const creating = view.mode === "create";
  const action = creating || !view.key ? adminPaths.sources : sourcePaths(view.key).save;
  return (
    <SettingsFormPage
      view={view}
      what="source"
      list={{ href: adminPaths.sources, label: "Sources", current: "sources" }}
      paths={sourcePaths}
      title={creating ? "New source" : `Edit source ${view.key ?? ""}`}
      action={action}
      labels={LABELS}
      actions={
        <button type="submit" className="button">
          {creating ? "Create source" : "Save source"}
        </button>
      }
    >
        <Group state={state} legend="The source">
          {creating ? <TextField state={state} name="sid" label="Sid" hint="As it arrives in the campaign link's sid; it never changes." required /> : null}
          <TextField state={state} name="name" label="Name" />
          <TextField state={state} name="payout" label="Payout per sold lead ($)" inputMode="decimal" required />
          <TextField state={state} name="floor" label="Auction floor ($)" inputMode="decimal" />
          <TextField state={state} name="postbackUrl" label="Postback URL" type="url" hint="Must contain {tid}; may use {payout}, {status} and {event_id} (the same on every retry of one postback: deduplicate on it). In production: https:// to a public host." wide />
        </Group>
    </SettingsFormPage>
  );
}
