/**
 * A buyer's requirements in the console (issue 44, item 4): the buyer form's fields under
 * "requirements." read into the schema's object and written back (server/admin/buyer-form.ts),
 * each problem beside its field, the fieldset as rendered (labels, hints, values kept), the
 * buyer's page in words (server/admin/settings-views.ts) and the history's sentences
 * (server/admin/settings-history.ts).
 */
import { describe, expect, it } from "vitest";
import { parse } from "node-html-parser";
import { buyerToForm, checkBuyerForm, requirementsFromForm } from "../../server/admin/buyer-form";
import { buyerSettingRows } from "../../server/admin/settings-views";
import { changeSentences } from "../../server/admin/settings-history";
import { requirementLines } from "../../server/admin/check-words";
import { buyerSchema } from "../../server/delivery/buyers";
import { NO_EXCEPTIONS } from "../../server/delivery/outbound";
import { renderAdmin } from "../../client/entry-server";
import type { AdminSession, BuyerFormView, FormValues } from "../../shared/admin-views";

const PRODUCTION = { enforce: true, allow: NO_EXCEPTIONS };
const ops: AdminSession = { name: "olivia", role: "ops", csrfToken: "csrf-ops-token" };

const BASE: FormValues = { id: "lakeside", name: "Lakeside Auto Insurance", mode: "post", url: "https://lakeside.example/leads", price: "12" };

/** Every requirement set, as a browser sends the fieldset. */
const ALL: FormValues = {
  ...BASE,
  "requirements.trustedForm": "retained",
  "requirements.leadid": "authentic",
  "requirements.litigatorClean": "yes",
  "requirements.noDnc": "yes",
  "requirements.lineTypes": ["mobile", "nonFixedVoip"],
  "requirements.whenUnavailable": "wait",
};

describe("reading the requirements from the buyer form", () => {
  it("reads every requirement into the schema's object", () => {
    const checked = checkBuyerForm(ALL, { status: "active", outbound: PRODUCTION });
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    expect(checked.buyer.requirements).toEqual({ trustedForm: "retained", leadid: "authentic", litigatorClean: true, noDnc: true, lineTypes: ["mobile", "nonFixedVoip"], whenUnavailable: "wait" });
  });

  it("leaves a buyer that requires nothing without requirements, the default 'skip' included", () => {
    expect(requirementsFromForm({ ...BASE, "requirements.trustedForm": "", "requirements.leadid": "", "requirements.whenUnavailable": "skip" })).toBeUndefined();
    const checked = checkBuyerForm({ ...BASE, "requirements.whenUnavailable": "skip" }, { status: "active", outbound: PRODUCTION });
    expect(checked.ok && "requirements" in checked.buyer).toBe(false);
    // The claimed certificate and a token's shape alone, skipping when unanswered.
    expect(requirementsFromForm({ "requirements.trustedForm": "certificate", "requirements.leadid": "token", "requirements.whenUnavailable": "skip" })).toEqual({ trustedForm: "certificate", leadid: "token" });
  });

  it("keeps every value through a round trip: form → buyer → form → buyer", () => {
    for (const values of [ALL, { ...BASE, "requirements.trustedForm": "certificate", "requirements.lineTypes": ["landline"], "requirements.whenUnavailable": "skip" }, BASE]) {
      const first = checkBuyerForm(values, { status: "active", outbound: PRODUCTION });
      if (!first.ok) throw new Error(JSON.stringify(first.errors));
      const form = buyerToForm(first.buyer);
      for (const [name, value] of Object.entries(values)) if (name.startsWith("requirements.")) expect(form[name], name).toEqual(value);
      const again = checkBuyerForm(form, { id: first.buyer.id, status: "active", outbound: PRODUCTION });
      expect(again).toEqual({ ok: true, buyer: first.buyer });
    }
    // A buyer stored without requirements shows "skip this buyer" chosen and no other requirement.
    expect(Object.entries(buyerToForm(buyerSchema.parse({ id: "a", name: "Aa", url: "https://a.example/", price: 1, secret: "s".repeat(32) }))).filter(([name]) => name.startsWith("requirements."))).toEqual([
      ["requirements.whenUnavailable", "skip"],
    ]);
  });

  it("refuses an unknown value beside its field, every problem at once", () => {
    const checked = checkBuyerForm(
      { ...BASE, "requirements.trustedForm": "pinky-promise", "requirements.leadid": "maybe", "requirements.lineTypes": ["mobile", "satellite"], "requirements.noDnc": "sure", "requirements.whenUnavailable": "later" },
      { status: "active", outbound: PRODUCTION },
    );
    expect(checked).toEqual({
      ok: false,
      errors: {
        "requirements.trustedForm": "Choose one of: retained, certificate.",
        "requirements.leadid": "Choose one of: authentic, token.",
        "requirements.noDnc": "Enter a boolean.",
        "requirements.lineTypes": "Choose one of: mobile, landline, fixedVoip, nonFixedVoip.",
        "requirements.whenUnavailable": "Choose one of: skip, wait.",
      },
    });
  });

  it("refuses waiting for an answer when no requirement asks a provider, beside 'When a check has no answer'", () => {
    const local = checkBuyerForm({ ...BASE, "requirements.trustedForm": "certificate", "requirements.leadid": "token", "requirements.whenUnavailable": "wait" }, { status: "active", outbound: PRODUCTION });
    expect(local).toEqual({ ok: false, errors: { "requirements.whenUnavailable": expect.stringMatching(/^Waiting is for a check a provider answers .*choose Skip this buyer\.$/) } });
    expect(checkBuyerForm({ ...BASE, "requirements.whenUnavailable": "wait" }, { status: "active", outbound: PRODUCTION }).ok).toBe(false);
    // With one check a provider answers, waiting is a choice.
    expect(checkBuyerForm({ ...BASE, "requirements.litigatorClean": "yes", "requirements.whenUnavailable": "wait" }, { status: "active", outbound: PRODUCTION }).ok).toBe(true);
  });
});

describe("the requirements fieldset as rendered", () => {
  const view = (values: FormValues, errors: Record<string, string> = {}): BuyerFormView => ({ page: "buyer-form", session: ops, mode: "edit", key: "lakeside", revision: 3, values, errors, ruleRows: 1 });

  it("labels every control, names the fieldset and shows the stored values", () => {
    const document = parse(renderAdmin(view(ALL), { nonce: "bm9uY2U" }));
    const fieldset = document.querySelector("fieldset#f-requirements");
    expect(fieldset?.querySelector("legend")?.text).toBe("Requirements before a lead is sent");
    const controls = fieldset?.querySelectorAll("input, select") ?? [];
    expect(controls.map((control) => control.getAttribute("name"))).toEqual([
      "requirements.trustedForm",
      "requirements.leadid",
      "requirements.litigatorClean",
      "requirements.noDnc",
      "requirements.lineTypes",
      "requirements.lineTypes",
      "requirements.lineTypes",
      "requirements.lineTypes",
      "requirements.whenUnavailable",
    ]);
    for (const control of controls) expect(document.querySelector(`label[for="${control.id}"]`)?.text, control.id).toBeTruthy();
    const labelOf = (name: string) => document.querySelector(`label[for="${fieldset?.querySelector(`[name="${name}"]`)?.id ?? ""}"]`)?.text;
    expect(labelOf("requirements.litigatorClean")).toBe("Phone not on the TCPA litigator list");
    expect(labelOf("requirements.noDnc")).toBe("Phone on no Do Not Call list (federal and the lead's state)");
    expect(labelOf("requirements.whenUnavailable")).toBe("When a check has no answer");
    const selected = (name: string) => fieldset?.querySelector(`select[name="${name}"] option[selected]`)?.text;
    expect(selected("requirements.trustedForm")).toBe("We retain the certificate");
    expect(selected("requirements.leadid")).toBe("Authentic");
    expect(selected("requirements.whenUnavailable")).toBe("Wait and try again");
    expect(fieldset?.querySelectorAll("input[checked]").map((input) => input.getAttribute("value"))).toEqual(["yes", "yes", "mobile", "nonFixedVoip"]);
    expect(fieldset?.querySelector('select[name="requirements.trustedForm"]')?.querySelectorAll("option").map((option) => option.text)).toEqual([
      "None",
      "We retain the certificate",
      "The buyer claims it: a certificate URL is enough",
    ]);
  });

  it("shows a problem beside its field and in the summary", () => {
    const document = parse(renderAdmin(view({ ...BASE, "requirements.trustedForm": "x" }, { "requirements.trustedForm": "Choose one of: retained, certificate." }), { nonce: "bm9uY2U" }));
    const select = document.querySelector('select[name="requirements.trustedForm"]');
    expect(select?.getAttribute("aria-invalid")).toBe("true");
    const described = (select?.getAttribute("aria-describedby") ?? "").split(" ");
    expect(described.map((id) => document.getElementById(id)?.text).join(" ")).toContain("Choose one of: retained, certificate.");
    expect(document.querySelector(".form-errors a")?.text).toBe("TrustedForm: Choose one of: retained, certificate.");
  });
});

describe("the requirements in words", () => {
  const stored = buyerSchema.parse({
    id: "lakeside",
    name: "Lakeside",
    url: "https://lakeside.example/leads",
    price: 12,
    secret: "s".repeat(32),
    requirements: { trustedForm: "retained", leadid: "token", litigatorClean: true, noDnc: true, lineTypes: ["mobile", "fixedVoip"], whenUnavailable: "wait" },
  });

  it("lists each requirement on the buyer's page", () => {
    expect(requirementLines(stored.requirements)).toEqual([
      "TrustedForm: we retain the certificate",
      "LeadiD: a token is enough",
      "Phone not on the TCPA litigator list",
      "Phone on no Do Not Call list (federal and the lead's state)",
      "Line types: mobile, fixed VoIP",
      "When a check has no answer: wait and try again",
    ]);
    const row = buyerSettingRows(stored).find((one) => one.label === "Requirements before a lead is sent");
    expect(row?.value).toBe(requirementLines(stored.requirements).join(" · "));
    expect(buyerSettingRows({ ...stored, requirements: undefined }).find((one) => one.label === "Requirements before a lead is sent")?.value).toBe("none (no check is run for it)");
  });

  it("names each changed requirement in the history, in the form's words", () => {
    const before = { name: "Lakeside", requirements: { trustedForm: "certificate", lineTypes: ["mobile"] } };
    const after = { name: "Lakeside", requirements: { trustedForm: "retained", leadid: "authentic", lineTypes: ["mobile", "landline"], whenUnavailable: "wait" } };
    expect(changeSentences({ action: "update", actor: "console:ana", before, after })).toEqual([
      "Requirement TrustedForm changed from the buyer claims it: a certificate URL is enough to we retain the certificate by ana.",
      "Requirement LeadiD set to authentic by ana.",
      "Requirement Line types changed from mobile to mobile, landline by ana.",
      "Requirement When a check has no answer set to wait and try again by ana.",
    ]);
    expect(changeSentences({ action: "update", actor: "console:ana", before: after, after: { name: "Lakeside" } })).toEqual([
      "Requirement TrustedForm removed by ana (it was we retain the certificate).",
      "Requirement LeadiD removed by ana (it was authentic).",
      "Requirement Line types removed by ana (it was mobile, landline).",
      "Requirement When a check has no answer removed by ana (it was wait and try again).",
    ]);
  });
});
