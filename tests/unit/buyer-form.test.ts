/**
 * The console's buyer and source forms as data (server/admin/buyer-form.ts, source-form.ts): the
 * urlencoded fields become the object buyerSchema checks, a zod issue's path names the field its
 * problem is shown beside, and a stored buyer written back into fields reads back the same; the
 * posting spec's forms and words (server/admin/buyer-spec.ts, spec-words.ts; issue 43).
 */
import { describe, expect, it } from "vitest";
import { buyerFieldFor, buyerFromForm, buyerToForm, checkBuyerForm, ruleRowsFor } from "../../server/admin/buyer-form";
import { checkSourceForm, sourceToForm } from "../../server/admin/source-form";
import { NO_EXCEPTIONS, parseAllowList, type OutboundAllowList } from "../../server/delivery/outbound";

const PRODUCTION = { enforce: true, allow: NO_EXCEPTIONS };
const DEVELOPMENT = { enforce: false, allow: NO_EXCEPTIONS };
function allowList(text: string): OutboundAllowList {
  const parsed = parseAllowList(text);
  if ("problems" in parsed) throw new Error(parsed.problems.join("; "));
  return parsed.allow;
}
import { amount, choice, fieldForPath, formValuesOf, issueMessage, words } from "../../server/admin/settings-form";
import type { FormValues } from "../../shared/admin-views";
import { buyerSchema } from "../../server/delivery/buyers";
import { buyerSpecView, checkCredentialForm, checkSpecForm } from "../../server/admin/buyer-spec";
import { credentialSentences, specSentences } from "../../server/admin/spec-words";
import { changeSentences } from "../../server/admin/settings-history";
import { ACME_POST, BOLT_POST, COBALT_PING, COBALT_POST } from "../../tools/buyer-spec-examples";

/** A filled-in form as a browser sends it (empty fields included, checkbox groups repeated). */
const FULL: FormValues = {
  id: "lakeside",
  name: "Lakeside Auto Insurance",
  phone: "(415) 555-0134",
  mode: "post",
  url: "https://lakeside.example/leads",
  pingUrl: "",
  webhookUrl: "https://lakeside.example/hooks",
  timeoutMs: "4000",
  pingTimeoutMs: "500",
  priority: "3",
  saleTypes: ["shared"],
  sandbox: "yes",
  states: ["CA", "TX"],
  timeZone: "America/Chicago",
  "schedule.on": "yes",
  "schedule.timeZone": "",
  "schedule.days": ["mon", "tue", "wed"],
  "schedule.from": "08:00",
  "schedule.to": "18:00",
  "caps.hour": "10",
  "caps.day": "200",
  "caps.week": "",
  "caps.month": "4000",
  "budget.day": "$1,500",
  "budget.month": "",
  price: "12.50",
  "priceRules.0.label": "Homeowners",
  "priceRules.0.add": "4",
  "priceRules.0.when.homeowner": "yes",
  "priceRules.0.when.states": "",
  "priceRules.1.label": "",
  "priceRules.1.add": "",
  "priceRules.1.when.homeowner": "any",
  "priceRules.2.label": "Young drivers in Texas",
  "priceRules.2.add": "-2.5",
  "priceRules.2.when.states": "tx",
  "priceRules.2.when.driverAge.max": "24",
  "filters.zips.include": "",
  "filters.zips.exclude": "90210, 90211\n10001",
  "filters.zipPrefixes.include": "9 75",
  "filters.driverAge.min": "21",
  "filters.driverAge.max": "",
  "filters.currentlyInsured": "yes",
  "filters.insuredForAtLeast": "6_12m",
  "filters.homeowner": "any",
  "filters.vehicles.max": "3",
  "filters.maxAccidents": "1",
  "filters.dui": "no",
  "filters.sr22": "any",
  "filters.coverage": ["standard", "premium"],
};

describe("reading the buyer form", () => {
  it("turns every group of fields into the buyer object, leaving empty ones out and packing the price rules", () => {
    const { input, ruleRows } = buyerFromForm(FULL, { status: "active" });
    expect(ruleRows).toEqual([0, 2]);
    expect(input).toEqual({
      id: "lakeside",
      name: "Lakeside Auto Insurance",
      phone: "(415) 555-0134",
      mode: "post",
      url: "https://lakeside.example/leads",
      webhookUrl: "https://lakeside.example/hooks",
      timeoutMs: 4000,
      pingTimeoutMs: 500,
      saleTypes: ["shared"],
      priority: 3,
      sandbox: true,
      states: ["CA", "TX"],
      timeZone: "America/Chicago",
      schedule: { timeZone: "America/Chicago", days: ["mon", "tue", "wed"], from: "08:00", to: "18:00" },
      caps: { hour: 10, day: 200, month: 4000 },
      budget: { day: 1500 },
      price: 12.5,
      priceRules: [
        { label: "Homeowners", when: { homeowner: true }, add: 4 },
        { label: "Young drivers in Texas", when: { driverAge: { max: 24 }, states: ["TX"] }, add: -2.5 },
      ],
      filters: {
        zips: { exclude: ["90210", "90211", "10001"] },
        zipPrefixes: { include: ["9", "75"] },
        driverAge: { min: 21 },
        currentlyInsured: true,
        insuredForAtLeast: "6_12m",
        vehicles: { max: 3 },
        maxAccidents: 1,
        dui: false,
        coverage: ["standard", "premium"],
      },
      status: "active",
    });
    const checked = checkBuyerForm(FULL, { status: "active", outbound: PRODUCTION });
    expect(checked.ok).toBe(true);
    if (checked.ok) {
      expect(checked.buyer.phone).toBe("+14155550134");
      expect(checked.buyer).not.toHaveProperty("secret");
    }
  });

  it("takes the edited buyer's id from the address, not the form, and keeps its status", () => {
    const { input } = buyerFromForm({ ...FULL, id: "someone-else" }, { id: "lakeside", status: "paused" });
    expect(input).toMatchObject({ id: "lakeside", status: "paused" });
  });

  it("reads a number as typed, hands a word on for the schema to refuse, and reads three-way choices", () => {
    expect(amount({ a: " $1,200.50 " }, "a")).toBe(1200.5);
    expect(amount({ a: "-4" }, "a")).toBe(-4);
    expect(amount({ a: "" }, "a")).toBeUndefined();
    expect(amount({ a: "ten" }, "a")).toBe("ten");
    expect(choice({ a: "any" }, "a")).toBeUndefined();
    expect(choice({ a: "only" }, "a", "only", "no")).toBe(true);
    expect(choice({ a: "no" }, "a", "only", "no")).toBe(false);
    expect(words({ a: "90210,90211; 10001\n" }, "a")).toEqual(["90210", "90211", "10001"]);
    // Only strings and lists of strings come through from the parsed body; the CSRF token is not a value.
    expect(formValuesOf({ a: "1", b: ["x", "y"], _csrf: "t", c: { nested: true } })).toEqual({ a: "1", b: ["x", "y"] });
  });

  it("shows the rows in use and blank ones to fill, at most 50", () => {
    expect(ruleRowsFor({}, 2)).toBe(2);
    expect(ruleRowsFor(FULL, 1)).toBe(4);
    expect(ruleRowsFor({ "priceRules.60.label": "x" }, 3)).toBe(50);
  });
});

describe("problems beside their fields", () => {
  it("names the field of each issue path: list entries their list, a group's own rule its fieldset, a packed rule its form row", () => {
    expect(buyerFieldFor(["states", 3])).toBe("states");
    expect(buyerFieldFor(["filters", "zips", "include", 0])).toBe("filters.zips.include");
    expect(buyerFieldFor(["filters", "driverAge"])).toBe("filters.driverAge");
    expect(buyerFieldFor(["filters", "driverAge", "max"])).toBe("filters.driverAge.max");
    expect(buyerFieldFor(["priceRules", 1, "when", "homeowner"], [0, 2])).toBe("priceRules.2.when.homeowner");
    expect(buyerFieldFor(["priceRules", 1, "when", "states", 0], [0, 2])).toBe("priceRules.2.when.states");
    expect(buyerFieldFor(["priceRules", 0, "add"], [4])).toBe("priceRules.4.add");
    expect(buyerFieldFor(["schedule", "to"])).toBe("schedule.to");
    expect(buyerFieldFor(["secret"])).toBe("");
    expect(fieldForPath(["a", "b", 2, "c"], (name) => name === "a.b")).toBe("a.b");
  });

  it("refuses a bad id, a negative price, ages the wrong way round, a bad ZIP and an unknown state, each beside its field", () => {
    const checked = checkBuyerForm(
      { ...FULL, id: "Bad Id!", price: "-1", "filters.driverAge.min": "60", "filters.driverAge.max": "30", "filters.zips.exclude": "9021", states: ["CA", "ZZ"] },
      { status: "active", outbound: DEVELOPMENT },
    );
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.errors).toEqual({
      id: "Lower-case letters, digits, - and _, at most 32.",
      price: "At least 0.",
      "filters.driverAge.max": "Min must not be more than max.",
      "filters.zips.exclude": "A 5-digit ZIP code, like 90210.",
      states: "A two-letter US state code, like CA.",
    });
  });

  it("says a word in a number field needs a number, and a missing required field is required", () => {
    const checked = checkBuyerForm({ ...FULL, "caps.day": "lots", url: "", name: "" }, { status: "active", outbound: DEVELOPMENT });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.errors).toMatchObject({ "caps.day": "Enter a number.", name: "At least 2 characters." });
  });

  it("puts the schema's cross-field rules beside the field they name (a pingpost buyer's ping URL)", () => {
    const checked = checkBuyerForm({ ...FULL, mode: "pingpost" }, { status: "active", outbound: DEVELOPMENT });
    expect(checked).toEqual({ ok: false, errors: { pingUrl: "A pingpost buyer needs its pingUrl." } });
  });

  it("refuses every internal address in production, beside its field, with the other problems at once", () => {
    const form = { ...FULL, url: "https://169.254.169.254/latest/meta-data/", webhookUrl: "http://[::1]:5432/", price: "-1" };
    const checked = checkBuyerForm(form, { status: "active", outbound: PRODUCTION });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(Object.keys(checked.errors).sort()).toEqual(["price", "url", "webhookUrl"]);
    expect(checked.errors.url).toMatch(/^169\.254\.169\.254 is a link-local address/);
    expect(checked.errors.webhookUrl).toMatch(/https:\/\//);
    // The compose stack's stub, named in OUTBOUND_ALLOW, may be reached over plain http.
    const stub = { ...FULL, url: "http://buyer-stub:4100/leads/lakeside", webhookUrl: "" };
    expect(checkBuyerForm(stub, { status: "active", outbound: PRODUCTION }).ok).toBe(false);
    expect(checkBuyerForm(stub, { status: "active", outbound: { enforce: true, allow: allowList("buyer-stub") } }).ok).toBe(true);
  });

  it("refuses an http:// buyer address in production only, beside that field", () => {
    const form = { ...FULL, webhookUrl: "http://lakeside.example/hooks" };
    expect(checkBuyerForm(form, { status: "active", outbound: DEVELOPMENT }).ok).toBe(true);
    const checked = checkBuyerForm(form, { status: "active", outbound: PRODUCTION });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(Object.keys(checked.errors)).toEqual(["webhookUrl"]);
  });

  it("words zod's generic issues plainly", () => {
    expect(issueMessage({ code: "too_big", origin: "array", maximum: 50, path: [], message: "", input: [] })).toBe("At most 50.");
    expect(issueMessage({ code: "invalid_value", values: ["post", "pingpost"], path: [], message: "", input: "x" })).toBe("Choose one of: post, pingpost.");
  });
});

describe("the edit form", () => {
  it("writes a stored buyer into fields that read back as the same buyer", () => {
    const first = checkBuyerForm(FULL, { status: "active", outbound: PRODUCTION });
    if (!first.ok) throw new Error(JSON.stringify(first.errors));
    const again = checkBuyerForm(buyerToForm(first.buyer), { id: first.buyer.id, status: "active", outbound: PRODUCTION });
    expect(again).toEqual({ ok: true, buyer: first.buyer });
  });
});

describe("the source form", () => {
  it("reads a source, and puts a postback URL without {tid} beside its field", () => {
    const good = checkSourceForm({ sid: "fb01", name: "Facebook", payout: "8", floor: "", postbackUrl: "https://track.example/pb?tid={tid}&p={payout}" }, { status: "active", outbound: PRODUCTION });
    expect(good).toEqual({ ok: true, source: { sid: "fb01", name: "Facebook", status: "active", payout: 8, floor: 0, postbackUrl: "https://track.example/pb?tid={tid}&p={payout}" } });
    if (good.ok) expect(checkSourceForm(sourceToForm(good.source), { sid: "fb01", status: "active", outbound: PRODUCTION })).toEqual(good);
    const bad = checkSourceForm({ sid: "fb 01", payout: "-3", postbackUrl: "https://track.example/pb" }, { status: "active", outbound: PRODUCTION });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(Object.keys(bad.errors).sort()).toEqual(["payout", "postbackUrl", "sid"]);
    const metadata = checkSourceForm({ sid: "fb01", payout: "8", postbackUrl: "http://169.254.169.254/pb?tid={tid}" }, { status: "active", outbound: PRODUCTION });
    expect(metadata).toEqual({ ok: false, errors: { postbackUrl: expect.stringMatching(/https:\/\//) } });
    const internal = checkSourceForm({ sid: "fb01", payout: "8", postbackUrl: "https://tracker.internal/pb?tid={tid}" }, { status: "active", outbound: PRODUCTION });
    expect(internal).toEqual({ ok: false, errors: { postbackUrl: expect.stringMatching(/reserved for private networks/) } });
  });
});

describe("a buyer's posting spec in the console (issue 43)", () => {
  const acmeBuyer = (extra: Record<string, unknown> = {}) =>
    buyerSchema.parse({ id: "acme", name: "Acme Auto Agents", url: "https://acme.example/leads", price: 12, secret: "s".repeat(32), spec: { post: ACME_POST }, credentials: { key: "acme-key" }, ...extra });

  it("keeps the stored spec through an edit of the other settings, and never returns the credentials", () => {
    const stored = acmeBuyer();
    const values = { ...buyerToForm(stored), price: "14" };
    const checked = checkBuyerForm(values, { id: "acme", status: "active", outbound: PRODUCTION, keep: { spec: stored.spec, credentials: stored.credentials } });
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    expect(checked.buyer.spec).toEqual(stored.spec);
    expect(checked.buyer.price).toBe(14);
    expect("credentials" in checked.buyer).toBe(false);
    // The form itself carries no spec and no credential.
    expect(JSON.stringify(values)).not.toMatch(/acme-key|"format"/);
  });

  it("refuses, beside the mode, turning a buyer with a ping spec into a post buyer", () => {
    const stored = buyerSchema.parse({
      id: "cobalt",
      name: "Cobalt Exchange",
      mode: "pingpost",
      url: "https://cobalt.example/post",
      pingUrl: "https://cobalt.example/ping",
      saleTypes: ["exclusive"],
      price: 0,
      secret: "s".repeat(32),
      spec: { post: COBALT_POST, ping: COBALT_PING },
      credentials: { apiKey: "k" },
    });
    const values = { ...buyerToForm(stored), mode: "post", pingUrl: "", saleTypes: ["shared"] };
    const checked = checkBuyerForm(values, { id: "cobalt", status: "active", outbound: PRODUCTION, keep: { spec: stored.spec, credentials: stored.credentials } });
    expect(checked).toEqual({ ok: false, errors: { mode: expect.stringContaining("ping spec") } });
  });

  it("checks the spec form: JSON, then the engine's problems with their paths, then the buyer's credentials", () => {
    const buyer = acmeBuyer();
    expect(checkSpecForm({ "spec.post": "" }, buyer)).toEqual({ ok: true, spec: undefined });
    expect(checkSpecForm({ "spec.post": JSON.stringify(ACME_POST) }, buyer)).toMatchObject({ ok: true, spec: { post: { format: "form" } } });
    const notJson = checkSpecForm({ "spec.post": '{\n  "format": "form",\n  oops\n}' }, buyer);
    expect(notJson).toMatchObject({ ok: false, state: { errors: { post: [{ path: "", message: expect.stringMatching(/^not JSON: .*\(line 3, column \d+\)$/) }] } } });
    const unknown = { ...ACME_POST, fields: ACME_POST.fields.map((field, index) => (index === 3 ? { ...field, from: "contact.fax" } : field)) };
    const refused = checkSpecForm({ "spec.post": JSON.stringify(unknown) }, buyer);
    expect(refused).toMatchObject({ ok: false, state: { values: { post: JSON.stringify(unknown) }, errors: { post: [{ path: "fields.3.from", message: expect.stringMatching(/unknown fact/) }] } } });
    const keyless = acmeBuyer({ spec: undefined, credentials: undefined });
    expect(checkSpecForm({ "spec.post": JSON.stringify(ACME_POST) }, keyless)).toMatchObject({ ok: false, state: { errors: { post: [{ path: "auth.credential" }] } } });
    // A post buyer has no ping spec.
    expect(checkSpecForm({ "spec.post": "", "spec.ping": JSON.stringify(COBALT_PING) }, buyer)).toMatchObject({ ok: false, state: { errors: { ping: [{ message: expect.stringContaining("ping/post") }] } } });
  });

  it("checks the credential form without ever putting the value in its answer", () => {
    expect(checkCredentialForm({ name: "key", value: " v " })).toEqual({ ok: true, name: "key", value: "v" });
    const bad = checkCredentialForm({ name: "bad name", value: "secret-value" });
    expect(bad).toEqual({ ok: false, state: { name: "bad name", errors: { name: "1 to 40 letters, digits, . _ and -." } } });
    expect(JSON.stringify(bad)).not.toContain("secret-value");
    expect(checkCredentialForm({ name: "key", value: "x".repeat(501) })).toMatchObject({ ok: false, state: { errors: { value: "At most 500 characters." } } });
  });

  it("says the spec in words: the field map, the auth, the answer rules, and what changed for the history", () => {
    const view = buyerSpecView(acmeBuyer());
    expect(view.credentials).toEqual([{ name: "key", fingerprint: expect.stringMatching(/^sha256:/), usedBy: ["post"] }]);
    expect(JSON.stringify(view)).not.toContain("acme-key");
    const [post] = view.stages;
    expect(post).toMatchObject({ format: "form", method: "POST", auth: "the credential key in the query parameter key", credential: "key" });
    expect(post!.fields).toContainEqual({ to: "Married", from: "driver.1.maritalStatus", transforms: 'married → "Y", partner → "Y", otherwise "N"' });
    expect(post!.fields).toContainEqual({ to: "TestLead", from: '"1" on test leads only', transforms: "" });
    expect(post!.answer).toContain('When the status is 401: tried again, reason "Acme refused our key (HTTP 401)".');
    const bolt = buyerSpecView(acmeBuyer({ spec: { post: BOLT_POST }, credentials: { token: "t" } })).stages[0]!;
    expect(bolt.fields).toContainEqual({ to: "vehicles", from: "every vehicle", transforms: "" });
    expect(bolt.fields).toContainEqual({ to: "vehicles › vin", from: "each vehicle's vin", transforms: "default null" });
    expect(bolt.auth).toBe("a bearer token: the credential token");

    const parsed = acmeBuyer().spec!.post!;
    const fewer = { ...parsed, fields: parsed.format === "quoteridge" ? [] : parsed.fields.slice(1) };
    expect(specSentences({ post: parsed }, { post: fewer }, "ana")).toEqual(["Posting spec (post) changed by ana: 1 field rule removed (FirstName)."]);
    expect(specSentences({ post: parsed }, undefined, "ana")).toEqual(["Posting spec (post) removed by ana: leads go as our signed JSON (quoteridge) again."]);
    expect(credentialSentences({ key: "sha256:aaa" }, { key: "sha256:bbb" }, "ana")).toEqual(["Credential key replaced by ana (now sha256:bbb, was sha256:aaa)."]);
    expect(changeSentences({ action: "rotate_credential", actor: "console:ana", before: { credentials: { key: "sha256:aaa" } }, after: { credentials: { key: "sha256:bbb" } } })).toEqual([
      "Credential key replaced by ana (now sha256:bbb, was sha256:aaa).",
    ]);
  });
});
