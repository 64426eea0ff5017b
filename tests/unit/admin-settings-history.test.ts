/**
 * Issue 42, items 7 and 8, as pure functions: a buyer's history told in sentences that name who
 * made each change (server/admin/settings-history.ts), and a taken id or name found with the
 * form's other problems (server/admin/buyer-form.ts buyerKeyProblems, checkBuyerForm's `others`).
 */
import { describe, expect, it } from "vitest";
import { actorWords, changeSentences, fieldSentences } from "../../server/admin/settings-history";
import { buyerKeyProblems, checkBuyerForm } from "../../server/admin/buyer-form";
import { checkSourceForm } from "../../server/admin/source-form";
import { NO_EXCEPTIONS } from "../../server/delivery/outbound";

const BASE = { id: "lakeside", name: "Lakeside", mode: "post", url: "https://lakeside.example/leads", price: 12, status: "active", secret: "sha256:aaaaaaaaaaaa" };

describe("a buyer's history in sentences", () => {
  it("names who made a change, in words for the command line and the start-up import", () => {
    expect(actorWords("console:ana")).toBe("ana");
    expect(actorWords("cli")).toBe("the command line (npm run buyers)");
    expect(actorWords("startup")).toBe("the start-up import of BUYERS_FILE");
  });

  it("says a price rule was added, changed or removed, with its dollars and condition", () => {
    const homeowners = { label: "Homeowners", add: 4, when: { homeowner: true } };
    expect(fieldSentences({ ...BASE }, { ...BASE, priceRules: [homeowners] }, "ana")).toEqual(["Price rule Homeowners +$4.00 added by ana (when homeowner: yes)."]);
    expect(fieldSentences({ ...BASE, priceRules: [homeowners] }, { ...BASE, priceRules: [{ ...homeowners, add: -2.5, when: { homeowner: true, states: ["CA"] } }] }, "ana")).toEqual([
      "Price rule Homeowners changed from +$4.00 when homeowner: yes to -$2.50 when homeowner: yes; states: CA by ana.",
    ]);
    expect(fieldSentences({ ...BASE, priceRules: [homeowners] }, { ...BASE }, "ana")).toEqual(["Price rule Homeowners +$4.00 removed by ana (it was when homeowner: yes)."]);
  });

  it("tells caps, budgets, prices, states, schedules and filters in the form's order and words", () => {
    const before = { ...BASE, caps: { day: 200 }, states: ["CA"], filters: { zips: { include: ["90210"] }, dui: false } };
    const after = {
      ...BASE,
      price: 14.5,
      caps: { day: 250, hour: 10 },
      budget: { month: 5000 },
      states: ["TX"],
      schedule: { timeZone: "America/Chicago", days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], from: "08:00", to: "20:00" },
      filters: { zips: { include: ["90210", "90211"], exclude: ["10001"] }, driverAge: { min: 21, max: 70 } },
    };
    expect(fieldSentences(before, after, "ana")).toEqual([
      "Schedule changed from always to every day 08:00–20:00 (America/Chicago) by ana.",
      "States: TX added, CA removed by ana.",
      "Cap per hour set to 10 by ana.",
      "Cap per day changed from 200 to 250 by ana.",
      "Budget per month set to $5,000.00 by ana.",
      "Base price changed from $12.00 to $14.50 by ana.",
      "Lead filter ZIP codes changed from include 90210 to include 90210, 90211; exclude 10001 by ana.",
      "Lead filter drivers' ages set to 21 to 70 by ana.",
      "Lead filter DUI removed by ana (it was none with it).",
    ]);
    expect(fieldSentences({ ...BASE, states: ["CA"] }, { ...BASE }, "ana")).toEqual(["States set to every state by ana (it was CA)."]);
  });

  it("says a status change, a rotation, a creation and an import in one sentence each", () => {
    const at = { before: { ...BASE }, after: { ...BASE, status: "paused" } };
    expect(changeSentences({ action: "pause", actor: "console:ana", ...at })).toEqual(["Paused by ana."]);
    expect(changeSentences({ action: "resume", actor: "console:ana", before: { ...BASE, status: "archived" }, after: { ...BASE } })).toEqual(["Restored by ana."]);
    expect(changeSentences({ action: "resume", actor: "console:ana", before: { ...BASE, status: "paused" }, after: { ...BASE } })).toEqual(["Resumed by ana."]);
    expect(changeSentences({ action: "create", actor: "console:ana", before: null, after: { ...BASE } })).toEqual(["Created by ana, with the secret sha256:aaaaaaaaaaaa."]);
    expect(
      changeSentences({ action: "rotate_secret", actor: "console:ana", before: { ...BASE }, after: { ...BASE, secret: "sha256:bbbbbbbbbbbb", previousSecret: "sha256:aaaaaaaaaaaa", previousSecretUntil: "2026-12-01T15:00:00.000Z" } }),
    ).toEqual(["Secret rotated by ana: sha256:bbbbbbbbbbbb replaced sha256:aaaaaaaaaaaa, which stays valid until 2026-12-01 15:00:00 UTC."]);
    expect(changeSentences({ action: "import", actor: "startup", before: null, after: { ...BASE } })).toEqual(["Imported by the start-up import of BUYERS_FILE, with the secret sha256:aaaaaaaaaaaa."]);
    expect(changeSentences({ action: "update", actor: "cli", before: { sid: "fb01", payout: 8, floor: 0 }, after: { sid: "fb01", payout: 9, floor: 0, postbackUrl: "https://t.example/pb?tid={tid}" } })).toEqual([
      "Payout per sold lead changed from $8.00 to $9.00 by the command line (npm run buyers).",
      "Postback URL set to https://t.example/pb?tid={tid} by the command line (npm run buyers).",
    ]);
  });

  it("never shows a key path or JSON, whatever the entries hold", () => {
    const sentences = fieldSentences({ ...BASE, filters: { vehicles: { max: 2 } }, priceRules: [{ label: "Young", add: 3, when: { driverAge: { max: 25 }, coverage: ["standard"] } }] }, { ...BASE, sandbox: true, priority: 5, timeoutMs: 4000 }, "ana");
    for (const sentence of sentences) expect(sentence).not.toMatch(/[{}[\]"]|priceRules|driverAge|timeoutMs/);
    expect(sentences).toContain("Post timeout set to 4,000 ms by ana.");
  });
});

describe("a taken id or name, with the form's other problems", () => {
  const others = [
    { id: "summit", name: "Summit Insurance" },
    { id: "harbor", name: "Harbor Auto" },
  ];
  it("finds a new buyer's taken id and a name another buyer has in any case", () => {
    expect(buyerKeyProblems({ id: "summit", name: "HARBOR auto" }, others)).toEqual({
      id: "A buyer with id summit exists already.",
      name: "Another buyer (harbor) is called Harbor Auto: the consent names buyers, so each name is one buyer's.",
    });
    expect(buyerKeyProblems({ id: "fresh", name: "Fresh" }, others)).toEqual({});
  });

  it("lets an edited buyer keep its own id and name", () => {
    expect(buyerKeyProblems({ id: "summit", name: "Summit Insurance" }, others, "summit")).toEqual({});
    expect(Object.keys(buyerKeyProblems({ id: "summit", name: "Harbor Auto" }, others, "summit"))).toEqual(["name"]);
  });

  it("answers every problem of one form at once: the schema's, the address's and the taken keys", () => {
    const checked = checkBuyerForm({ id: "summit", name: "summit insurance", mode: "post", url: "http://summit.example/leads", price: "-1" }, { status: "active", outbound: { enforce: true, allow: NO_EXCEPTIONS }, others });
    expect(checked.ok).toBe(false);
    expect(checked.ok ? [] : Object.keys(checked.errors)).toEqual(["price", "url", "id", "name"]);
    const source = checkSourceForm({ sid: "fb01", payout: "-1" }, { status: "active", outbound: { enforce: true, allow: NO_EXCEPTIONS }, others: [{ sid: "fb01" }] });
    expect(source.ok ? [] : Object.keys(source.errors).sort()).toEqual(["payout", "sid"]);
  });
});
