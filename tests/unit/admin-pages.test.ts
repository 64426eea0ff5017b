/**
 * The console's pages (client/admin/) rendered from fixture views, as the server would: the
 * report's numbers and its charts' accessible tables, ops-only navigation and forms, CSRF on
 * every form, overdue privacy requests said in words, and hostile strings escaped.
 */
import { describe, expect, it } from "vitest";
import { parse, type HTMLElement } from "node-html-parser";
import { renderAdmin } from "../../client/entry-server";
import { adminPaths, type AdminSession, type AdminView, type BuyersView, type JourneyView, type LeadListView, type LeadsView, type PrivacyView, type ReportView, type SignInView } from "../../shared/admin-views";
import { REQUEST_STORED, type ReportRow, type ScreenFunnel } from "../../shared/analytics";
import { SCREEN_IDS } from "../../shared/lead/fields";
import { SCREEN_SOURCES_SHOWN } from "../../client/admin/ScreenFunnelSection";

const NONCE = "bm9uY2Utbm9uY2Utbm9uY2U";
const ops: AdminSession = { name: "olivia", role: "ops", csrfToken: "csrf-ops-token" };
const analyst: AdminSession = { name: "adam", role: "analyst", csrfToken: "csrf-analyst-token" };

function row(partial: Partial<ReportRow>): ReportRow {
  return {
    date: null, sid: null, clicks: 0, unique_clicks: 0, zip_submits: 0, quote_views: 0, form_starts: 0, leads: 0,
    duplicates: 0, sold: 0, returned: 0, revenue: 0, payout: 0, profit: 0, cr: 0, epc: 0, bids: 0, bid_total: 0, avg_bid: 0, revenue_per_lead: 0, ...partial,
  };
}

/** A source's funnel: the first screen answered by `visits − 1`, one left there, the rest 0; `leads` requests stored. */
function screenFunnel(sid: string | null, visits: number, leads = 0, earlier = 0): ScreenFunnel {
  return {
    sid,
    visits,
    leads,
    earlier,
    screens: [...SCREEN_IDS, REQUEST_STORED].map((screen, index) => {
      const answered = index === 0 ? visits - 1 : index === SCREEN_IDS.length ? leads : 0;
      const left = index === 0 ? 1 : 0;
      return { screen, position: index + 1, reached: answered + left, answered, left, left_rate: left / (answered + left || 1) };
    }),
  };
}

function reportView(overrides: Partial<ReportView> = {}): ReportView {
  return {
    page: "report",
    session: analyst,
    query: { since: "2026-11-01", until: "2026-11-03", by: "day,sid", bots: false },
    rows: [
      row({ date: "2026-11-01", sid: "a1", clicks: 1200, unique_clicks: 1000, zip_submits: 400, quote_views: 380, form_starts: 200, leads: 50, duplicates: 2, sold: 40, returned: 1, revenue: 1234.5, payout: 600, profit: 634.5, cr: 0.05, epc: 1.2345, bids: 80, bid_total: 1720, avg_bid: 21.5, revenue_per_lead: 24.69 }),
      row({ date: "2026-11-02", sid: "", clicks: 10, unique_clicks: 8, leads: 1, cr: 0.125, revenue: -12, payout: -5, profit: -7, epc: -1.5 }),
    ],
    totals: row({ clicks: 1210, unique_clicks: 1008, zip_submits: 400, quote_views: 380, form_starts: 200, leads: 51, duplicates: 2, sold: 40, returned: 1, revenue: 1222.5, payout: 595, profit: 627.5, cr: 51 / 1008, epc: 1222.5 / 1008 }),
    funnel: [
      { stage: "Clicks", count: 1210 },
      { stage: "Unique clicks", count: 1008 },
      { stage: "ZIP submits", count: 400 },
      { stage: "Quote views", count: 380 },
      { stage: "Form starts", count: 200 },
      { stage: "Leads", count: 51 },
      { stage: "Sold", count: 40 },
    ],
    trend: [
      { sid: "a1", points: [{ date: "2026-11-01", clicks: 1200, leads: 50, revenue: 1234.5 }, { date: "2026-11-02", clicks: 300, leads: 7, revenue: 80 }] },
      { sid: "", points: [{ date: "2026-11-02", clicks: 10, leads: 1, revenue: -12 }] },
    ],
    buyers: [
      { buyer: "summit", pings: 120, bids: 80, avg_bid: 21.5, wins: 30, win_rate: 0.375, returned: 1, revenue: 645 },
      { buyer: "harbor", pings: 0, bids: 0, avg_bid: 0, wins: 12, win_rate: null, returned: 0, revenue: 144 },
    ],
    screens: [screenFunnel(null, 1001, 40, 3), screenFunnel("", 1), screenFunnel("a1", 1000, 40, 3)],
    ...overrides,
  };
}

function render(view: AdminView): HTMLElement {
  return parse(renderAdmin(view, { nonce: NONCE }));
}

/** The text of each cell of the table's rows, keyed by the column (data-column). */
function reportCells(document: HTMLElement, section: "tbody" | "tfoot"): Record<string, string>[] {
  return document.querySelectorAll(`.report-table ${section} tr`).map((tr) =>
    Object.fromEntries(tr.querySelectorAll("[data-column]").map((cell) => [cell.getAttribute("data-column") ?? "", cell.text.trim()])),
  );
}

function figure(document: HTMLElement, caption: string): HTMLElement {
  const found = document.querySelectorAll("figure").find((candidate) => candidate.querySelector("figcaption")?.text === caption);
  if (!found) throw new Error(`no figure captioned ${caption}`);
  return found;
}

/** A table's body as rows of cell texts (header cells included). */
function tableRows(table: HTMLElement | null): string[][] {
  return (table?.querySelectorAll("tbody tr") ?? []).map((tr) => tr.querySelectorAll("th, td").map((cell) => cell.text.trim()));
}

const privacyView: PrivacyView = {
  page: "privacy",
  session: ops,
  requests: [
    { reference: "PR-OLD", type: "delete", status: "received", receivedAt: "2026-09-01T12:00:00.000Z", dueAt: "2026-10-16T12:00:00.000Z", overdue: true, daysLeft: -3, state: "CA", gpc: false, closedAt: null, note: null },
    { reference: "PR-NEW", type: "opt_out", status: "received", receivedAt: "2026-10-10T12:00:00.000Z", dueAt: "2026-11-24T12:00:00.000Z", overdue: false, daysLeft: 12, state: null, gpc: true, closedAt: null, note: null },
    { reference: "PR-DONE", type: "access", status: "completed", receivedAt: "2026-08-01T12:00:00.000Z", dueAt: "2026-09-15T12:00:00.000Z", overdue: false, daysLeft: -60, state: "VA", gpc: false, closedAt: "2026-08-20T09:30:00.000Z", note: "Sent the export" },
  ],
};

const leadsView: LeadsView = {
  page: "leads",
  session: ops,
  reference: "QR-7F3K2",
  lead: {
    reference: "QR-7F3K2",
    receivedAt: "2026-11-01T15:00:00.000Z",
    state: "CA",
    sid: "a1",
    tid: "t1",
    duplicateOf: null,
    gpc: false,
    quote: { vehicles: ["2019 Toyota Camry · Own it"], drivers: ["Me, age 36 · Married"], insurance: "Not insured now · <b>wants</b> standard coverage" },
  },
  deliveries: [
    {
      kind: "buyer", target: "acme", status: "failed", sale: false, price: null, lastError: "HTTP 503", reason: null, priceReason: null,
      createdAt: "2026-11-01T15:00:01.000Z", completedAt: "2026-11-01T15:05:00.000Z", canRetry: true, canReturn: false, buyerLeadId: null, requestSent: null,
      attempts: [
        { at: "2026-11-01T15:00:01.000Z", outcome: "error", httpStatus: 503, latencyMs: 120, excerpt: "Service Unavailable" },
        { at: "2026-11-01T15:01:01.000Z", outcome: "error", httpStatus: 503, latencyMs: 95, excerpt: "Service Unavailable" },
      ],
    },
    {
      kind: "buyer", target: "bolt", status: "accepted", sale: true, price: 18.5, lastError: null, reason: null, priceReason: "base $14.50 + Homeowners +$4.00",
      createdAt: "2026-11-01T15:00:01.000Z", completedAt: "2026-11-01T15:00:02.000Z", canRetry: false, canReturn: true, buyerLeadId: null, requestSent: null,
      attempts: [{ at: "2026-11-01T15:00:02.000Z", outcome: "accepted", httpStatus: 200, latencyMs: 80, excerpt: null }],
    },
  ],
  failed: [],
};

const buyersView: BuyersView = {
  page: "buyers",
  session: analyst,
  configured: true,
  buyers: [
    { id: "acme", name: "Acme Insurance", status: "active", mode: "post", price: 18.5, limits: [{ period: "day", unit: "leads", used: 45, limit: 50 }, { period: "month", unit: "dollars", used: 1240, limit: 5000 }], today: 45, dailyCap: 50, acceptanceRate: 0.625, revenue30d: 4321, failed: 2, pending: 1, open: true },
    { id: "bolt", name: "Bolt Auto", status: "paused", mode: "pingpost", price: 12, limits: [], today: 7, dailyCap: null, acceptanceRate: null, revenue30d: 0, failed: 0, pending: 0, open: false },
  ],
};

const journeyView: JourneyView = {
  page: "journey",
  session: analyst,
  tid: "t1",
  events: [
    { at: "2026-11-01T14:00:00.000Z", name: "campaign_hit", sid: "a1", tid: "t1", visitId: "v-123", bot: false, gpc: false, path: "/zipcode", step: null, leadReference: null, target: null, detail: null, revenue: null, payout: null, bid: null },
    { at: "2026-11-01T14:00:20.000Z", name: "zip_submitted", sid: "a1", tid: "t1", visitId: "v-123", bot: false, gpc: false, path: "/go", step: null, leadReference: null, target: null, detail: "accepted", revenue: null, payout: null, bid: null },
    { at: "2026-11-01T14:03:00.000Z", name: "lead_submitted", sid: "a1", tid: "t1", visitId: "v-123", bot: false, gpc: false, path: null, step: null, leadReference: "QR-7F3K2", target: null, detail: null, revenue: null, payout: null, bid: null },
    { at: "2026-11-01T14:03:02.000Z", name: "lead_sold", sid: "a1", tid: "t1", visitId: "v-123", bot: false, gpc: false, path: null, step: null, leadReference: "QR-7F3K2", target: "bolt", detail: null, revenue: 18.5, payout: 9, bid: null },
  ],
};

const signInView: SignInView = { page: "sign-in", csrfToken: "pre-session-token", next: "/buyers", error: "Wrong name or password." };

const allViews: AdminView[] = [
  signInView,
  reportView(),
  reportView({ session: ops }),
  journeyView,
  leadsView,
  buyersView,
  privacyView,
  { page: "error", status: 403, message: "Only ops can do that.", session: analyst },
];

describe("the console document", () => {
  it("is a whole HTML document with the stylesheet inline under the response's nonce and no script", () => {
    const html = renderAdmin(reportView(), { nonce: NONCE });
    expect(html.startsWith("<!doctype html><html lang=\"en\">")).toBe(true);
    const document = parse(html);
    const style = document.querySelector("head style");
    expect(style?.getAttribute("nonce")).toBe(NONCE);
    expect(style?.text).toContain(".data-table");
    expect(document.querySelectorAll("script")).toHaveLength(0);
    expect(document.querySelector('meta[name="robots"]')?.getAttribute("content")).toBe("noindex, nofollow");
    expect(document.querySelector("title")?.text).toBe("Sub-id report · Operations console · QuoteRidge");
  });

  it.each(allViews.map((view) => [view.page, view] as const))("has no style attributes on the %s page (the CSP need not allow them)", (_page, view) => {
    expect(renderAdmin(view, { nonce: NONCE })).not.toMatch(/\sstyle="/);
  });

  it.each(allViews.map((view) => [view.page, view] as const))("puts a CSRF field in every form that posts on the %s page", (_page, view) => {
    const document = render(view);
    const token = view.page === "sign-in" ? view.csrfToken : view.session?.csrfToken;
    const posting = document.querySelectorAll('form[method="post"]');
    expect(posting.length).toBeGreaterThan(0);
    for (const form of posting) {
      const fields = form.querySelectorAll('input[name="_csrf"]');
      expect(fields, form.getAttribute("action")).toHaveLength(1);
      expect(fields[0]?.getAttribute("type")).toBe("hidden");
      expect(fields[0]?.getAttribute("value")).toBe(token);
    }
  });

  it.each(allViews.map((view) => [view.page, view] as const))("labels every input on the %s page", (_page, view) => {
    const document = render(view);
    for (const input of document.querySelectorAll("input:not([type=hidden]), select, textarea")) {
      const id = input.getAttribute("id");
      expect(id, input.toString()).toBeTruthy();
      expect(document.querySelectorAll(`label[for="${id}"]`), input.toString()).toHaveLength(1);
    }
  });

  it("shows who is signed in, a skip link and the section as the current page", () => {
    const document = render(reportView());
    expect(document.querySelector(".console-user")?.text).toContain("Signed in as adam");
    expect(document.querySelector(".role-badge")?.text).toBe("analyst");
    expect(document.querySelector(".skip-link")?.getAttribute("href")).toBe("#main");
    expect(document.querySelector("main")?.getAttribute("id")).toBe("main");
    expect(document.querySelector('nav a[aria-current="page"]')?.text).toBe("Report");
    expect(document.querySelector(`form[action="${adminPaths.signOut}"] button`)?.text).toBe("Sign out");
  });

  it("offers Privacy requests to ops only (analysts see leads without contact details)", () => {
    const navFor = (session: AdminSession) => render(reportView({ session })).querySelectorAll("nav a").map((link) => link.text);
    expect(navFor(analyst)).toEqual(["Report", "Journey", "Leads", "Buyers", "Sources", "Experiments"]);
    expect(navFor(ops)).toEqual(["Report", "Journey", "Leads", "Buyers", "Sources", "Experiments", "Privacy requests"]);
  });

  it("announces a flash message as a status, an error in words too", () => {
    const success = render({ ...buyersView, flash: { kind: "success", text: "Delivery queued again." } }).querySelector('[role="status"]');
    expect(success?.text).toBe("Delivery queued again.");
    const failure = render({ ...buyersView, flash: { kind: "error", text: "Nothing to retry." } }).querySelector('[role="status"]');
    expect(failure?.text).toBe("Error: Nothing to retry.");
  });
});

describe("the sign-in page", () => {
  it("posts name, password, next and the pre-session token, with the error as an alert", () => {
    const document = render(signInView);
    const form = document.querySelector(`form[action="${adminPaths.signIn}"]`);
    expect(form?.getAttribute("method")).toBe("post");
    expect(form?.querySelectorAll("input").map((input) => input.getAttribute("name"))).toEqual(["_csrf", "next", "name", "password"]);
    expect(form?.querySelector('input[name="next"]')?.getAttribute("value")).toBe("/buyers");
    expect(form?.querySelector('input[name="password"]')?.getAttribute("type")).toBe("password");
    expect(document.querySelector('[role="alert"]')?.text).toBe("Wrong name or password.");
    expect(document.querySelector("nav")).toBeNull();
  });

  it("keeps the name typed but never a password", () => {
    const document = render({ ...signInView, name: "olivia", error: undefined, next: undefined });
    expect(document.querySelector('input[name="name"]')?.getAttribute("value")).toBe("olivia");
    expect(document.querySelector('input[name="password"]')?.getAttribute("value")).toBeUndefined();
    expect(document.querySelector('input[name="next"]')).toBeNull();
    expect(document.querySelector('[role="alert"]')).toBeNull();
  });
});

describe("the report page", () => {
  it("lists every row with money in dollars, cr as a percentage and epc in dollars", () => {
    const rows = reportCells(render(reportView()), "tbody");
    expect(rows).toEqual([
      { date: "2026-11-01", sid: "a1", clicks: "1,200", unique_clicks: "1,000", zip_submits: "400", quote_views: "380", form_starts: "200", leads: "50", duplicates: "2", sold: "40", returned: "1", revenue: "$1,234.50", payout: "$600.00", profit: "$634.50", cr: "5.0%", epc: "$1.23", bids: "80", avg_bid: "$21.50", revenue_per_lead: "$24.69" },
      { date: "2026-11-02", sid: "(none)", clicks: "10", unique_clicks: "8", zip_submits: "0", quote_views: "0", form_starts: "0", leads: "1", duplicates: "0", sold: "0", returned: "0", revenue: "-$12.00", payout: "-$5.00", profit: "-$7.00", cr: "12.5%", epc: "-$1.50", bids: "0", avg_bid: "$0.00", revenue_per_lead: "$0.00" },
    ]);
  });

  it("ends with a totals row", () => {
    const [totals] = reportCells(render(reportView()), "tfoot");
    expect(totals).toMatchObject({ date: "Total", clicks: "1,210", unique_clicks: "1,008", leads: "51", revenue: "$1,222.50", profit: "$627.50", cr: "5.1%", epc: "$1.21" });
    expect(totals).not.toHaveProperty("sid");
  });

  it("shows only the columns of its grouping", () => {
    const columns = (by: ReportView["query"]["by"]) =>
      render(reportView({ query: { since: "2026-11-01", until: "2026-11-03", by, bots: false }, rows: [] })).querySelectorAll(".report-table thead th").map((th) => th.getAttribute("data-column"));
    expect(columns("day")?.slice(0, 2)).toEqual(["date", "clicks"]);
    expect(columns("sid")?.slice(0, 2)).toEqual(["sid", "clicks"]);
    expect(columns("day,sid")).toHaveLength(19);
  });

  it("says when the range has no events", () => {
    expect(render(reportView({ rows: [] })).querySelector(".report-table tbody")?.text).toContain("No events in this range.");
  });

  it("shows each buyer's pings, bids, average bid, wins, win rate, returns and revenue; a fixed-price buyer has no win rate", () => {
    const rows = render(reportView()).querySelectorAll(".buyer-report-table tbody tr").map((tr) => tr.querySelectorAll("th, td").map((cell) => cell.text.trim()));
    expect(rows).toEqual([
      ["summit", "120", "80", "$21.50", "30", "37.5%", "1", "$645.00"],
      ["harbor", "0", "0", "—", "12", "—", "0", "$144.00"],
    ]);
    expect(render(reportView({ buyers: [] })).querySelector(".buyer-report-table tbody")?.text).toContain("No pings or sales in this range.");
  });

  it("keeps the query in the form and in the CSV link", () => {
    const query = { since: "2026-10-01", until: "2026-11-01", by: "sid" as const, bots: true, sid: "a1" };
    const document = render(reportView({ query }));
    const form = document.querySelector(`form[action="${adminPaths.report}"]`);
    expect(form?.getAttribute("method")).toBe("get");
    expect(form?.querySelector('input[name="since"]')?.getAttribute("value")).toBe("2026-10-01");
    expect(form?.querySelector('input[name="until"]')?.getAttribute("value")).toBe("2026-11-01");
    expect(form?.querySelector('select[name="by"] option[selected]')?.getAttribute("value")).toBe("sid");
    expect(form?.querySelector('input[name="bots"]')?.getAttribute("value")).toBe("1");
    expect(form?.querySelector('input[name="bots"]')?.hasAttribute("checked")).toBe(true);
    expect(form?.querySelector('input[name="sid"]')?.getAttribute("value")).toBe("a1");
    const csv = document.querySelectorAll("a").find((link) => link.text === "Download CSV");
    expect(csv?.getAttribute("href")).toBe(`${adminPaths.reportCsv}?since=2026-10-01&until=2026-11-01&by=sid&bots=1&sid=a1`);
  });

  it("leaves bots unchecked and out of the CSV link when they are excluded", () => {
    const document = render(reportView());
    expect(document.querySelector('input[name="bots"]')?.hasAttribute("checked")).toBe(false);
    const csv = document.querySelectorAll("a").find((link) => link.text === "Download CSV");
    expect(csv?.getAttribute("href")).toBe(`${adminPaths.reportCsv}?since=2026-11-01&until=2026-11-03&by=day%2Csid`);
  });

  it("shows where visitors leave the form: each screen in flow order, for all sources and then per source", () => {
    const document = render(reportView());
    const section = document.querySelector('section[aria-labelledby="screen-funnel-heading"]');
    expect(section?.querySelector("h2")?.text).toBe("Where visitors leave the form");
    const [all, ...perSource] = section!.querySelectorAll("table.screen-funnel-table");
    expect(all?.querySelector("caption")?.text).toBe("All sources: 1,001 visits in the form, 40 requests stored; 3 visits on an earlier form left out");
    expect(all?.querySelectorAll("thead th").map((th) => [th.getAttribute("scope"), th.text])).toEqual([
      ["col", "Screen"],
      ["col", "Reached"],
      ["col", "Answered"],
      ["col", "Left"],
      ["col", "Left rate"],
    ]);
    const rows = tableRows(all!);
    expect(rows.map((cells) => cells[0])).toEqual([...SCREEN_IDS, "Request stored"]);
    expect(rows[0]).toEqual([SCREEN_IDS[0], "1,001", "1,000", "1", "0.1%"]);
    expect(rows.at(-1)).toEqual(["Request stored", "40", "40", "0", "0.0%"]);
    expect(all!.querySelectorAll("tbody th").every((th) => th.getAttribute("scope") === "row")).toBe(true);
    // Per source, the largest first, folded under a summary that names it.
    expect(section!.querySelectorAll("details summary").map((summary) => summary.text)).toEqual([
      "a1: 1,000 visits in the form, 40 requests stored; 3 visits on an earlier form left out",
      "(none): 1 visit in the form, 0 requests stored",
    ]);
    expect(perSource.map((table) => table.getAttribute("data-sid"))).toEqual(["a1", ""]);
    // Every table is a labelled, focusable region (it may scroll sideways on a phone).
    for (const region of section!.querySelectorAll('[role="region"]')) {
      expect(region.getAttribute("tabindex")).toBe("0");
      expect(document.getElementById(region.getAttribute("aria-labelledby") ?? "")?.tagName).toBe("CAPTION");
    }
  });

  it("asks before reading the form's events: without them, a link to the same query with screens=1, and the form's box", () => {
    const document = render(reportView({ query: { since: "2026-11-01", until: "2026-11-03", by: "sid", bots: true }, screens: undefined }));
    const section = document.querySelector(".screen-funnel");
    expect(section?.querySelector("table")).toBeNull();
    expect(section?.querySelector("a")?.getAttribute("href")).toBe("/?since=2026-11-01&until=2026-11-03&by=sid&bots=1&screens=1#screen-funnel-heading");
    expect(document.querySelector('input[name="screens"]')?.hasAttribute("checked")).toBe(false);
    const asked = render(reportView({ query: { since: "2026-11-01", until: "2026-11-03", by: "sid", bots: false, screens: true } }));
    expect(asked.querySelector('input[name="screens"]')?.hasAttribute("checked")).toBe(true);
    expect(asked.querySelector('label[for="report-screens"]')?.text).toBe("Where visitors leave the form");
  });

  it("shows one source's screens alone when the report keeps to it, and says so when there is no form traffic", () => {
    const one = render(reportView({ query: { since: "2026-11-01", until: "2026-11-03", by: "sid", bots: false, sid: "a1" }, screens: [screenFunnel(null, 1000), screenFunnel("a1", 1000)] }));
    expect(one.querySelectorAll("table.screen-funnel-table")).toHaveLength(1);
    expect(one.querySelector("table.screen-funnel-table caption")?.text).toMatch(/^Source a1: 1,000 visits/);
    expect(one.querySelector(".screen-funnel details")).toBeNull();
    const none = render(reportView({ screens: [screenFunnel(null, 0)] }));
    expect(none.querySelector(".screen-funnel .empty")?.text).toBe("No quote form traffic in this range.");
    expect(none.querySelector("table.screen-funnel-table")).toBeNull();
  });

  it("folds at most the largest sources one by one, and points to the filter for the others", () => {
    const sources = Array.from({ length: SCREEN_SOURCES_SHOWN + 2 }, (_, index) => screenFunnel(`s${String(index).padStart(2, "0")}`, index + 1));
    const section = render(reportView({ screens: [screenFunnel(null, 100), ...sources] })).querySelector(".screen-funnel");
    const shown = section!.querySelectorAll("details").map((details) => details.getAttribute("data-sid"));
    expect(shown).toHaveLength(SCREEN_SOURCES_SHOWN);
    expect(shown[0]).toBe(`s${String(SCREEN_SOURCES_SHOWN + 1).padStart(2, "0")}`);
    expect(section!.text).toContain("2 more sources with fewer visits");
  });

  it("lists the form's problems as an alert", () => {
    const alert = render(reportView({ errors: ["since: not a date"] })).querySelector('[role="alert"]');
    expect(alert?.querySelector("li")?.text).toBe("since: not a date");
  });
});

describe("the report's charts", () => {
  it("draws the funnel as one bar per stage, longest for the largest, with the numbers in its table", () => {
    const funnel = figure(render(reportView()), "Funnel for the whole range");
    const svg = funnel.querySelector("svg");
    expect(svg?.getAttribute("role")).toBe("img");
    expect(svg?.getAttribute("aria-label")).toBe("Funnel: Clicks 1,210, Unique clicks 1,008, ZIP submits 400, Quote views 380, Form starts 200, Leads 51, Sold 40");
    const bars = funnel.querySelectorAll("rect.funnel-bar").map((bar) => Number(bar.getAttribute("width")));
    expect(bars).toHaveLength(7);
    expect(bars[0]).toBeGreaterThan(100);
    expect([...bars].sort((a, b) => b - a)).toEqual(bars);
    expect(bars[6]! / bars[0]!).toBeCloseTo(40 / 1210, 5);
    expect(tableRows(funnel.querySelector("table"))).toEqual([
      ["Clicks", "1,210", "100.0%"],
      ["Unique clicks", "1,008", "83.3%"],
      ["ZIP submits", "400", "33.1%"],
      ["Quote views", "380", "31.4%"],
      ["Form starts", "200", "16.5%"],
      ["Leads", "51", "4.2%"],
      ["Sold", "40", "3.3%"],
    ]);
  });

  it("draws one line per source for clicks and for leads, with every day's number in its table", () => {
    const document = render(reportView());
    const clicks = figure(document, "Clicks per day by source");
    expect(clicks.querySelector("svg")?.getAttribute("role")).toBe("img");
    expect(clicks.querySelector("svg")?.getAttribute("aria-label")).toBe("Clicks per day by source, 2026-11-01 to 2026-11-02. a1: 1,500 in total; (none): 10 in total.");
    const lines = clicks.querySelectorAll("path.trend-line");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.getAttribute("d")).toMatch(/^M[\d.]+,[\d.]+L[\d.]+,[\d.]+$/);
    expect(lines[0]?.getAttribute("stroke")).not.toBe(lines[1]?.getAttribute("stroke"));
    expect(clicks.querySelectorAll(".chart-legend li").map((item) => item.text)).toEqual(["a1", "(none)"]);
    expect(clicks.querySelectorAll("table thead th").map((th) => th.text)).toEqual(["Date", "a1", "(none)"]);
    expect(tableRows(clicks.querySelector("table"))).toEqual([
      ["2026-11-01", "1,200", "0"],
      ["2026-11-02", "300", "10"],
    ]);
    const leads = figure(document, "Leads per day by source");
    expect(tableRows(leads.querySelector("table"))).toEqual([
      ["2026-11-01", "50", "0"],
      ["2026-11-02", "7", "1"],
    ]);
  });

  it("puts the larger day higher up the chart", () => {
    const clicks = figure(render(reportView()), "Clicks per day by source");
    const [first, second] = clicks.querySelectorAll(".trend-series")[0]!.querySelectorAll("circle").map((dot) => Number(dot.getAttribute("cy")));
    expect(first).toBeLessThan(second!);
  });

  it("says there was no traffic instead of drawing an empty trend", () => {
    const clicks = figure(render(reportView({ trend: [] })), "Clicks per day by source");
    expect(clicks.querySelector("svg")).toBeNull();
    expect(clicks.text).toContain("No traffic in this range.");
  });

  it("draws a single day as a point", () => {
    const clicks = figure(render(reportView({ trend: [{ sid: "a1", points: [{ date: "2026-11-01", clicks: 4, leads: 1, revenue: 0 }] }] })), "Clicks per day by source");
    expect(clicks.querySelectorAll("circle")).toHaveLength(1);
    expect(tableRows(clicks.querySelector("table"))).toEqual([["2026-11-01", "4"]]);
  });
});

describe("hostile strings", () => {
  const hostile = `<script>alert("x")</script>`;

  it("are escaped wherever a source id appears: table, legend, chart summary and query", () => {
    const html = renderAdmin(
      reportView({
        query: { since: "2026-11-01", until: "2026-11-03", by: "day,sid", bots: false, sid: hostile },
        rows: [row({ date: "2026-11-01", sid: hostile, clicks: 1, unique_clicks: 1 })],
        trend: [{ sid: hostile, points: [{ date: "2026-11-01", clicks: 1, leads: 0, revenue: 0 }] }],
      }),
      { nonce: NONCE },
    );
    expect(html).not.toContain("<script>");
    const document = parse(html);
    expect(document.querySelectorAll("script")).toHaveLength(0);
    expect(reportCells(document, "tbody")[0]?.sid).toBe(hostile);
    expect(figure(document, "Clicks per day by source").querySelector(".chart-legend li")?.text).toBe(hostile);
    expect(document.querySelector('input[name="sid"]')?.getAttribute("value")).toBe(hostile);
  });

  it("are escaped in journeys, leads, privacy notes and the user's name", () => {
    const views: AdminView[] = [
      { ...journeyView, tid: hostile, session: { ...ops, name: hostile }, events: journeyView.events.map((event) => ({ ...event, detail: hostile, path: hostile })) },
      { ...leadsView, deliveries: leadsView.deliveries.map((delivery) => ({ ...delivery, lastError: hostile, attempts: delivery.attempts.map((attempt) => ({ ...attempt, excerpt: hostile })) })) },
      { ...privacyView, requests: privacyView.requests.map((request) => ({ ...request, note: hostile })) },
      { page: "error", status: 404, message: hostile },
      { ...signInView, error: hostile, name: hostile },
    ];
    for (const view of views) {
      const html = renderAdmin(view, { nonce: NONCE });
      expect(html, view.page).not.toContain("<script>");
      expect(html, view.page).toContain("&lt;script&gt;");
    }
  });
});

describe("the journey page", () => {
  it("lists the click's events in order with their times and what they carried", () => {
    const document = render(journeyView);
    const rows = document.querySelectorAll(".journey-table tbody tr");
    expect(rows.map((tr) => tr.getAttribute("data-event"))).toEqual(["campaign_hit", "zip_submitted", "lead_submitted", "lead_sold"]);
    expect(rows.map((tr) => tr.querySelector("th")?.text)).toEqual(["Campaign hit", "ZIP submitted", "Lead submitted", "Sold to buyer"]);
    expect(rows[0]?.querySelector("time")?.getAttribute("datetime")).toBe("2026-11-01T14:00:00.000Z");
    expect(rows[0]?.querySelector("time")?.text).toBe("2026-11-01 14:00:00 UTC");
    const sold = rows[3]?.querySelector("dl")?.text;
    expect(sold).toContain("buyerbolt");
    expect(sold).toContain("revenue$18.50");
    expect(sold).toContain("payout$9.00");
    expect(document.querySelector("caption")?.text).toBe("4 events for tid t1, oldest first");
  });

  it("links the lead to the leads page for ops only", () => {
    expect(render(journeyView).querySelector('.journey-table a[href^="/leads"]')).toBeNull();
    expect(render({ ...journeyView, session: ops }).querySelector('.journey-table a[href^="/leads"]')?.getAttribute("href")).toBe("/leads?reference=QR-7F3K2");
  });

  it("says when a tid has no events, and shows the server's error as an alert", () => {
    expect(render({ ...journeyView, events: [] }).text).toContain("No events for tid t1.");
    const failed = render({ ...journeyView, events: [], error: "A tid is at most 64 characters." });
    expect(failed.querySelector('[role="alert"]')?.text).toBe("A tid is at most 64 characters.");
  });
});

describe("the leads page", () => {
  it("shows the lead's facts and each delivery's attempts", () => {
    const document = render(leadsView);
    expect(document.querySelector(".facts")?.text).toContain("QR-7F3K2");
    const cards = document.querySelectorAll(".delivery");
    expect(cards).toHaveLength(2);
    expect(cards[0]?.querySelectorAll("tbody tr")).toHaveLength(2);
    expect(cards[0]?.querySelector("tbody tr")?.text).toContain("503");
    expect(cards[1]?.text).toContain("$18.50");
  });

  it("says why each delivery cost what it did", () => {
    const reasons = render(leadsView).querySelectorAll(".delivery .price-reason").map((cell) => cell.text);
    expect(reasons).toEqual(["—", "base $14.50 + Homeowners +$4.00"]);
  });

  it("shows the quote: a line per vehicle and driver, and the insurance, as text", () => {
    const document = render(leadsView);
    const quote = document.querySelector('section[aria-labelledby="quote-facts"]')!;
    expect(quote.querySelectorAll("ol")[0]?.querySelectorAll("li").map((item) => item.text)).toEqual(["2019 Toyota Camry · Own it"]);
    expect(quote.querySelectorAll("ol")[1]?.querySelectorAll("li").map((item) => item.text)).toEqual(["Me, age 36 · Married"]);
    expect(quote.querySelector("p")?.innerHTML).toBe("Not insured now · &lt;b&gt;wants&lt;/b&gt; standard coverage");
  });

  it("offers ops a retry of the failed delivery and a return of the accepted one", () => {
    const document = render(leadsView);
    const retry = document.querySelectorAll(`form[action="${adminPaths.leadRetry}"]`);
    expect(retry).toHaveLength(1);
    expect(retry[0]?.getAttribute("method")).toBe("post");
    expect(Object.fromEntries(retry[0]!.querySelectorAll("input").map((input) => [input.getAttribute("name"), input.getAttribute("value")]))).toEqual({ _csrf: "csrf-ops-token", reference: "QR-7F3K2", buyer: "acme" });
    const giveBack = document.querySelectorAll(`form[action="${adminPaths.leadReturn}"]`);
    expect(giveBack).toHaveLength(1);
    expect(giveBack[0]?.querySelectorAll("input").map((input) => input.getAttribute("name"))).toEqual(["_csrf", "reference", "buyer", "reason"]);
    expect(giveBack[0]?.querySelector('input[name="buyer"]')?.getAttribute("value")).toBe("bolt");
  });

  it("offers an analyst no action", () => {
    const document = render({ ...leadsView, session: analyst });
    expect(document.querySelectorAll('form[method="post"]').map((form) => form.getAttribute("action"))).toEqual([adminPaths.signOut]);
  });

  it("lists recent failed deliveries when nothing is searched", () => {
    const document = render({ page: "leads", session: ops, deliveries: [], failed: [{ reference: "QR-1", target: "acme", lastError: "timeout", completedAt: "2026-11-01T00:00:00.000Z" }] });
    const link = document.querySelector('table a[href="/leads?reference=QR-1"]');
    expect(link?.text).toBe("QR-1");
    expect(document.querySelector("tbody")?.text).toContain("timeout");
  });
});

describe("the leads list", () => {
  const list: LeadListView = {
    query: { since: "2026-11-01", until: "2026-11-08", status: "sold" },
    rows: [
      {
        reference: "LD-AAAA-BBBB",
        receivedAt: "2026-11-02T15:00:00.000Z",
        sid: "fb01",
        state: "TX",
        status: "sold",
        purchases: [
          { buyer: "acme", price: 18.5, returned: false },
          { buyer: "bolt", price: 7, returned: true },
        ],
        price: 18.5,
        contact: { phone: "(•••) •••-0134", email: "j•••@example.com" },
      },
    ],
    total: 51,
    older: "since=2026-11-01&until=2026-11-08&status=sold&after=LD-AAAA-BBBB",
    paged: true,
    buyers: ["acme", "bolt"],
    csv: "/leads.csv?since=2026-11-01&until=2026-11-08&status=sold",
    contacts: true,
  };

  it("shows each lead with its link, status, buyers, price and masked contact for ops, the CSV and both page links", () => {
    const document = render({ page: "leads", session: ops, deliveries: [], failed: [], list });
    expect(tableRows(document.querySelector(".lead-list"))).toEqual([["LD-AAAA-BBBB", "2026-11-02 15:00:00 UTC", "fb01", "TX", "sold", "acme, bolt (returned)", "$18.50", "(•••) •••-0134\nj•••@example.com"]]);
    expect(document.querySelector('.lead-list a[href="/leads?reference=LD-AAAA-BBBB"]')).not.toBeNull();
    expect(document.querySelector("a[download]")?.getAttribute("href")).toBe(list.csv);
    expect(document.querySelectorAll(".pager a").map((link) => [link.text, link.getAttribute("href")])).toEqual([
      ["Newest leads", "/leads?since=2026-11-01&until=2026-11-08&status=sold"],
      ["Older leads", `/leads?${list.older!}`],
    ]);
    expect(document.querySelector("#leads-status option[selected]")?.getAttribute("value")).toBe("sold");
  });

  it("gives analysts no contact column, no contact search and no CSV", () => {
    const { csv: _csv, ...analystList } = list;
    const document = render({ page: "leads", session: analyst, deliveries: [], failed: [], list: { ...analystList, contacts: false, rows: list.rows.map(({ contact: _contact, ...row }) => row) } });
    expect(document.querySelectorAll(".lead-list thead th").map((th) => th.text)).not.toContain("Contact");
    expect(document.querySelector('label[for="leads-find"]')?.text).toBe("Lead reference");
    expect(document.querySelector("a[download]")).toBeNull();
  });

  it("announces the form's problems as an alert and keeps what was typed", () => {
    const document = render({ page: "leads", session: ops, deliveries: [], failed: [], listErrors: ["Status must be one of sold, unsold, returned, test."], listForm: { status: "lost", sid: "fb01" }, listBuyers: ["acme"] });
    expect(document.querySelector('[role="alert"]')?.text).toContain("Status must be one of");
    expect(document.querySelector("#leads-sid")?.getAttribute("value")).toBe("fb01");
    expect(document.querySelectorAll("#leads-buyer option").map((option) => option.text)).toEqual(["Any buyer", "acme"]);
    expect(document.querySelector(".lead-list")).toBeNull();
  });
});

describe("the buyers page", () => {
  it("shows status, mode, price, each cap and budget against this period, acceptance, revenue, failures and whether the buyer is open", () => {
    const document = render(buyersView);
    expect(tableRows(document.querySelector(".buyers-table"))).toEqual([
      ["Acme Insurance (acme)", "active", "post", "$18.50", "Day 45 / 50 Month $1,240.00 / $5,000.00", "62.5%", "$4,321.00", "2", "1", "Open"],
      ["Bolt Auto (bolt)", "paused", "ping/post", "$12.00", "No caps or budget · today 7", "—", "$0.00", "0", "0", "Closed (paused)"],
    ]);
    const meter = document.querySelector("meter");
    expect(meter?.getAttribute("value")).toBe("45");
    expect(meter?.getAttribute("max")).toBe("50");
    expect(meter?.getAttribute("aria-label")).toBe("Acme Insurance: Day 45 / 50 (cap)");
    // An analyst gets no way to change anything.
    expect(document.querySelectorAll("form")).toHaveLength(1);
    expect(document.text).not.toContain("New buyer");
  });

  it("lists archived buyers apart, collapsed, and gives ops the buttons to create, edit, pause, resume and archive", () => {
    const buyers = [buyersView.buyers[0]!, buyersView.buyers[1]!, { ...buyersView.buyers[1]!, id: "gone", name: "Gone Auto", status: "archived" as const }];
    const document = render({ ...buyersView, session: ops, buyers });
    expect(document.querySelectorAll("details.archived [data-buyer]").map((row) => row.getAttribute("data-buyer"))).toEqual(["gone"]);
    expect(document.querySelector('a[href="/buyers/new"]')?.text).toBe("New buyer");
    const buttons = document.querySelectorAll("form.button-form button").map((button) => button.text);
    expect(buttons).toEqual(["Pause acme", "Archive acme", "Resume bolt", "Archive bolt", "Restore gone"]);
    expect(document.querySelector('a[href="/buyers/acme/edit"]')).not.toBeNull();
  });

  it("says when no buyers are configured", () => {
    expect(render({ ...buyersView, configured: false, buyers: [] }).text).toContain("runs without business settings");
  });
});

describe("the privacy requests queue", () => {
  it("keeps the server's order and highlights overdue requests in words, not colour alone", () => {
    const document = render(privacyView);
    const rows = document.querySelectorAll(".privacy-table tbody tr");
    expect(rows.map((tr) => tr.getAttribute("data-reference"))).toEqual(["PR-OLD", "PR-NEW", "PR-DONE"]);
    expect(rows.map((tr) => tr.classList.contains("overdue"))).toEqual([true, false, false]);
    expect(rows.map((tr) => tr.querySelector(".deadline")?.text)).toEqual(["Overdue by 3 days", "12 days left", "Completed"]);
    expect(document.querySelector(".summary")?.text).toBe("2 open, 1 overdue");
    // Known types as the form named them; anything else as stored.
    expect(rows.map((tr) => tr.querySelectorAll("td")[0]?.text)).toEqual(["delete", "opt_out", "Tell me what personal information you have about me"]);
  });

  it("gives every open request a close form with outcome and note, and shows how closed ones ended", () => {
    const document = render(privacyView);
    const forms = document.querySelectorAll(`form[action="${adminPaths.privacyClose}"]`);
    expect(forms.map((form) => form.querySelector('input[name="reference"]')?.getAttribute("value"))).toEqual(["PR-OLD", "PR-NEW"]);
    for (const form of forms) {
      expect(form.getAttribute("method")).toBe("post");
      expect(form.querySelectorAll('select[name="outcome"] option').map((option) => option.getAttribute("value"))).toEqual(["completed", "denied"]);
      expect(form.querySelector('textarea[name="note"]')).not.toBeNull();
    }
    expect(document.querySelector('tr[data-reference="PR-DONE"]')?.text).toContain("Sent the export");
  });

  it("words a one-day delay and a deadline of today", () => {
    const [first] = privacyView.requests;
    const document = render({ ...privacyView, requests: [{ ...first!, daysLeft: -1 }, { ...first!, reference: "PR-TODAY", overdue: false, daysLeft: 0 }] });
    expect(document.querySelectorAll(".deadline").map((cell) => cell.text)).toEqual(["Overdue by 1 day", "Due today"]);
  });
});

describe("the error page", () => {
  it("says what happened and links back", () => {
    const document = render({ page: "error", status: 404, message: "No such page.", session: analyst });
    expect(document.querySelector("h1")?.text).toBe("Page not found (404)");
    expect(document.querySelector("main")?.text).toContain("No such page.");
    expect(document.querySelector('main a[href="/"]')?.text).toBe("Back to the report");
  });

  it("sends a visitor without a session to sign in", () => {
    const document = render({ page: "error", status: 403, message: "Sign in first." });
    expect(document.querySelector(`main a[href="${adminPaths.signIn}"]`)?.text).toBe("Sign in");
    expect(document.querySelector("nav")).toBeNull();
  });
});
