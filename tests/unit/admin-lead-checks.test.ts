/**
 * A lead's "Checks" section (issue 44, item 7): each recorded check (server/db/lead-checks.ts) in
 * the console's words (server/admin/check-words.ts), and the section as the lead's page renders it
 * for ops and analysts; the Offers section's requirement verdict shown whole.
 */
import { describe, expect, it } from "vitest";
import { parse } from "node-html-parser";
import { leadCheckView } from "../../server/admin/check-words";
import type { StoredCheck } from "../../server/db/lead-checks";
import { renderAdmin } from "../../client/entry-server";
import type { AdminSession, LeadsView } from "../../shared/admin-views";

const ops: AdminSession = { name: "olivia", role: "ops", csrfToken: "csrf-ops-token" };
const analyst: AdminSession = { name: "adam", role: "analyst", csrfToken: "csrf-analyst-token" };
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 1, 15, 0, seconds));

const check = (partial: Partial<StoredCheck> & Pick<StoredCheck, "kind" | "provider">): StoredCheck => ({
  status: "ok",
  outcome: "clean",
  detail: null,
  latencyMs: 120,
  cached: false,
  calls: 1,
  startedAt: at(1),
  finishedAt: at(2),
  ...partial,
});

const STORED: StoredCheck[] = [
  check({ kind: "jornaya", provider: "jornaya", outcome: "authentic", latencyMs: 210 }),
  check({ kind: "trustedform", provider: "trustedform", status: "failed", outcome: "foreign_host", detail: "the certificate URL is not on https://cert.trustedform.com", latencyMs: 0, calls: 0 }),
  check({ kind: "litigator", provider: "tcpa-litigator-list", outcome: "clean", latencyMs: 0, cached: true, calls: 0 }),
  check({ kind: "dnc", provider: "dnc-scrub", status: "unavailable", outcome: "timeout", detail: "no answer within 1500 ms", latencyMs: 1500 }),
  check({ kind: "line_type", provider: "twilio-lookup", outcome: "fixedVoip", latencyMs: 95 }),
  check({ kind: "litigator", provider: "tcpa-litigator-list", status: "running", outcome: null, latencyMs: null, finishedAt: null, startedAt: at(5) }),
];

describe("a recorded check in words", () => {
  it("names each kind, status and outcome as ops read them", () => {
    const views = STORED.map(leadCheckView);
    expect(views.map((view) => [view.kindText, view.statusText, view.outcomeText])).toEqual([
      ["LeadiD", "answered", "authentic"],
      ["TrustedForm certificate", "failed", "foreign host"],
      ["TCPA litigator", "answered", "clean"],
      ["Do Not Call", "no answer", "timeout"],
      ["Line type", "answered", "fixed VoIP"],
      ["TCPA litigator", "running", null],
    ]);
    expect(views[2]).toMatchObject({ kind: "litigator", provider: "tcpa-litigator-list", cached: true, calls: 0, latencyMs: 0, startedAt: at(1).toISOString(), finishedAt: at(2).toISOString() });
    expect(views[5]?.finishedAt).toBeNull();
    // A kind a later release adds is shown as stored rather than dropped.
    expect(leadCheckView(check({ kind: "email_verify", provider: "x" })).kindText).toBe("email_verify");
  });
});

const leadView = (session: AdminSession, checks: LeadsView["checks"]): LeadsView => ({
  page: "leads",
  session,
  reference: "LD-7K3M-Q9XD",
  lead: { reference: "LD-7K3M-Q9XD", receivedAt: at(0).toISOString(), state: "CA", sid: "a1", tid: null, duplicateOf: null, gpc: false, quote: { vehicles: [], drivers: [], insurance: "" } },
  ...(checks ? { checks } : {}),
  offers: {
    at: at(0).toISOString(),
    buyers: [
      {
        buyerId: "acme",
        name: "Acme",
        mode: "pingpost",
        offered: true,
        rule: null,
        reason: null,
        recorded: "ping not sent",
        requirement: "requires an authentic LeadiD; the check had no answer (timeout) — and every word of a long reason stays on the page",
      },
    ],
  },
  deliveries: [],
  failed: [],
});

describe("the lead page's Checks section", () => {
  const render = (view: LeadsView) => parse(renderAdmin(view, { nonce: "bm9uY2U" }));

  it("lists each check with provider, status, outcome, latency, cached and when, for ops and analysts alike", () => {
    for (const session of [ops, analyst]) {
      const document = render(leadView(session, STORED.map(leadCheckView)));
      const section = document.querySelector('section[aria-labelledby="checks"]');
      expect(section?.querySelector("h2")?.text).toBe("Checks");
      const rows = section?.querySelectorAll("tbody tr").map((row) => row.querySelectorAll("th, td").map((cell) => cell.text));
      expect(rows?.[0]?.slice(0, 6)).toEqual(["LeadiD", "jornaya", "answered", "authentic", "210 ms", "—"]);
      expect(rows?.[1]?.slice(0, 6)).toEqual(["TrustedForm certificate", "trustedform", "failed", "foreign host: the certificate URL is not on https://cert.trustedform.com", "0 ms", "—"]);
      expect(rows?.[2]?.slice(0, 6)).toEqual(["TCPA litigator", "tcpa-litigator-list", "answered", "clean", "0 ms", "cached"]);
      expect(rows?.[3]?.slice(0, 6)).toEqual(["Do Not Call", "dnc-scrub", "no answer", "timeout: no answer within 1500 ms", "1500 ms", "—"]);
      expect(rows?.[4]?.slice(0, 6)).toEqual(["Line type", "twilio-lookup", "answered", "fixed VoIP", "95 ms", "—"]);
      expect(rows?.[5]?.slice(0, 5)).toEqual(["TCPA litigator", "tcpa-litigator-list", "running", "—", "—"]);
      // When: the answer's time, else the start's.
      expect(section?.querySelectorAll("tbody time").map((time) => time.getAttribute("datetime"))).toEqual([...STORED.slice(0, 5).map(() => at(2).toISOString()), at(5).toISOString()]);
    }
  });

  it("says why there are none, and shows no section for a lead not stored", () => {
    const none = render(leadView(ops, []));
    expect(none.querySelector('section[aria-labelledby="checks"] p.empty')?.text).toBe("No checks ran: no buyer that could take this lead requires one.");
    expect(render(leadView(ops, undefined)).querySelector('section[aria-labelledby="checks"]')).toBeNull();
  });

  it("shows a buyer's requirement verdict whole beside what the records show", () => {
    const document = render(leadView(analyst, []));
    const offers = document.querySelector('section[aria-labelledby="offers"]');
    const cells = offers?.querySelectorAll("tbody tr td") ?? [];
    expect(cells.at(-1)?.text).toBe("ping not sent: requires an authentic LeadiD; the check had no answer (timeout) — and every word of a long reason stays on the page");
  });
});
