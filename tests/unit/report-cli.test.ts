/**
 * `npm run report` (server/cli/report.ts) without a database: its command-line mistakes (each a
 * UsageError, exit 2, found before any store is opened) and how it writes rows and journeys.
 */
import { describe, expect, it } from "vitest";
import { formatBuyers, formatJourney, formatReport, formatScreens, run } from "../../server/cli/report";
import { UsageError } from "../../server/cli/common";
import { REQUEST_STORED, type BuyerReportRow, type JourneyEvent, type ReportRow, type ScreenFunnel } from "../../shared/analytics";

/** A store that cannot be opened: a mistake must be reported before the command gets that far. */
const ENV = { DATA_DIR: "/nonexistent/never-created", DATABASE_URL: "" };

const ROWS: ReportRow[] = [
  { date: "2026-11-02", sid: "", clicks: 1, unique_clicks: 1, zip_submits: 0, quote_views: 0, form_starts: 0, leads: 0, duplicates: 0, sold: 0, returned: 0, revenue: 0, payout: 0, profit: 0, cr: 0, epc: 0, bids: 0, bid_total: 0, avg_bid: 0, revenue_per_lead: 0 },
  { date: "2026-11-02", sid: "a1", clicks: 1204, unique_clicks: 1100, zip_submits: 800, quote_views: 790, form_starts: 400, leads: 99, duplicates: 3, sold: 60, returned: 2, revenue: 1530.5, payout: 600, profit: 930.5, cr: 0.09, epc: 1.39, bids: 240, bid_total: 4321.5, avg_bid: 18.01, revenue_per_lead: 15.46 },
];
const QUERY = { since: "2026-11-01", until: "2026-12-01", by: "day,sid" as const, includeBots: false, timeZone: "America/New_York" };

describe("npm run report: command-line mistakes", () => {
  const mistakes: [string[], RegExp][] = [
    [["--by", "week"], /^--by must be one of day, sid, day,sid/],
    [["--until", "soon"], /^--until must be a date/],
    [["--since", "2026-02-30"], /^--since must be a date/],
    [["--since", "2026-11-01", "--until", "2026-11-01"], /^--until must be after --since/],
    [["--since", "2026-11-01", "--by", "week"], /^--by must be one of day, sid, day,sid/],
    [["--since", "2026-11-01", "--format", "xml"], /Unknown format xml: use table, csv or json/],
    [["--since", "2026-11-01", "--sid", "a b"], /^--sid must be/],
    [["--since", "2026-11-01", "--limit", "5"], /--limit applies only to a journey/],
    [["--since", "2026-11-01", "extra"], /Unknown command extra/],
    [["--since", "2026-11-01", "--verbose"], /Unknown option '--verbose'/],
    [["tid"], /Say which click/],
    [["tid", "t 1"], /is not a click id/],
    [["tid", "t1", "t2"], /Unexpected t2/],
    [["tid", "t1", "--since", "2026-11-01"], /--since does not apply to a journey/],
    [["tid", "t1", "--format", "csv"], /Unknown format csv: use table or json/],
    [["tid", "t1", "--limit", "0"], /--limit must be a whole number/],
    [["buyers", "--until", "2026-13-01"], /^--until must be a date/],
    [["buyers", "--since", "2026-11-01", "--by", "day"], /--by does not apply to the per-buyer view/],
    [["buyers", "--since", "2026-11-01", "--limit", "3"], /--limit applies only to a journey/],
    [["buyers", "--since", "2026-11-01", "--format", "xml"], /Unknown format xml: use table, csv or json/],
    [["buyers", "--since", "2026-11-01", "extra"], /Unexpected extra/],
    [["screens", "--sid", "a b"], /^--sid must be/],
    [["screens", "--since", "2026-11-01", "--by", "sid"], /--by does not apply to the screens view/],
    [["screens", "--since", "2026-11-01", "--limit", "3"], /--limit applies only to a journey/],
    [["screens", "--since", "2026-11-01", "--format", "xml"], /Unknown format xml: use table, csv or json/],
    [["screens", "--since", "2026-11-01", "--sid", "a b"], /^--sid must be/],
    [["screens", "--since", "2026-11-01", "extra"], /Unexpected extra/],
  ];
  for (const [argv, message] of mistakes) {
    it(`refuses ${argv.join(" ")}`, async () => {
      const failure = run(argv, () => {}, ENV);
      await expect(failure).rejects.toThrow(message);
      if (!argv.includes("--verbose")) await expect(failure).rejects.toBeInstanceOf(UsageError);
    });
  }

  it("asks for --until when --since is after today", async () => {
    await expect(run(["--since", "2099-01-01"], () => {}, { DATA_DIR: "/nonexistent/never-created" })).rejects.toThrow(/--since 2099-01-01 is after today .*: say --until too/);
  });

  it("prints its usage for --help (exit 0; without arguments it prints the default report: tests/db/report-cli.test.ts)", async () => {
    let text = "";
    expect(await run(["--help"], (chunk) => (text += chunk), ENV)).toBe(0);
    expect(text).toContain("npm run report -- tid CLICK_ID");
    expect(text).toContain("npm run report -- screens [--since YYYY-MM-DD]");
    expect(text).toContain("since to 30 days before until, as the console's report");
    expect(text).toContain("npm run report                      the sub-id report of the last 30 days");
  });
});

describe("formatReport", () => {
  it("writes CSV with exactly the report's columns, money in cents and cr to 4 places", () => {
    expect(formatReport(ROWS, "csv", QUERY)).toBe(
      "date,sid,clicks,unique_clicks,zip_submits,quote_views,form_starts,leads,duplicates,sold,returned,revenue,payout,profit,cr,epc,bids,avg_bid,revenue_per_lead\r\n" +
        "2026-11-02,,1,1,0,0,0,0,0,0,0,0.00,0.00,0.00,0.0000,0.00,0,0.00,0.00\r\n" +
        "2026-11-02,a1,1204,1100,800,790,400,99,3,60,2,1530.50,600.00,930.50,0.0900,1.39,240,18.01,15.46\r\n",
    );
  });

  it("keeps negative money as a number in CSV (not defused like a formula)", () => {
    const csv = formatReport([{ ...ROWS[1]!, revenue: -25.5, payout: -10, profit: -15.5, epc: -0.02 }], "csv", QUERY);
    expect(csv.split("\r\n")[1]).toBe("2026-11-02,a1,1204,1100,800,790,400,99,3,60,2,-25.50,-10.00,-15.50,0.0900,-0.02,240,18.01,15.46");
  });

  it("defuses a sid a spreadsheet would run as a formula", () => {
    expect(formatReport([{ ...ROWS[1]!, sid: "=cmd" }], "csv", QUERY).split("\r\n")[1]).toMatch(/^2026-11-02,'=cmd,/);
  });

  it("lines the table up, numbers on the right, traffic without a sid named, and a total line", () => {
    expect(formatReport(ROWS, "table", QUERY)).toBe(
      [
        "Sub-id report, 2026-11-01 to 2026-11-30 (America/New_York), by day,sid, bots excluded",
        "",
        "date        sid     clicks  unique_clicks  zip_submits  quote_views  form_starts  leads  duplicates  sold  returned  revenue  payout  profit      cr   epc  bids  avg_bid  revenue_per_lead",
        "2026-11-02  (none)       1              1            0            0            0      0           0     0         0     0.00    0.00    0.00  0.0000  0.00     0     0.00              0.00",
        "2026-11-02  a1        1204           1100          800          790          400     99           3    60         2  1530.50  600.00  930.50  0.0900  1.39   240    18.01             15.46",
        "total                 1205           1101          800          790          400     99           3    60         2  1530.50  600.00  930.50  0.0899  1.39   240    18.01             15.46",
        "",
      ].join("\n"),
    );
  });

  it("says so when there is no traffic", () => {
    expect(formatReport([], "table", { ...QUERY, includeBots: true, sid: "" })).toBe("No traffic from 2026-11-01 to 2026-11-30 (America/New_York), bots included, sid (none).\n");
  });

  it("writes JSON with the query, the rows and the totals", () => {
    const json = JSON.parse(formatReport(ROWS, "json", { ...QUERY, sid: "a1" }));
    expect(json).toMatchObject({ since: "2026-11-01", until: "2026-12-01", by: "day,sid", bots: false, sid: "a1", timeZone: "America/New_York", rows: ROWS });
    expect(json.totals).toMatchObject({ date: null, sid: null, clicks: 1205, unique_clicks: 1101, revenue: 1530.5 });
  });
});

describe("formatBuyers", () => {
  const BUYERS: BuyerReportRow[] = [
    { buyer: "summit", pings: 120, bids: 80, avg_bid: 21.5, wins: 30, win_rate: 0.375, returned: 1, revenue: 645 },
    { buyer: "harbor", pings: 0, bids: 0, avg_bid: 0, wins: 12, win_rate: null, returned: 0, revenue: 144 },
  ];

  it("writes CSV and a table with each buyer's pings, bids, average bid, wins, win rate, returns and revenue", () => {
    expect(formatBuyers(BUYERS, "csv", QUERY)).toBe("buyer,pings,bids,avg_bid,wins,win_rate,returned,revenue\r\nsummit,120,80,21.50,30,0.3750,1,645.00\r\nharbor,0,0,0.00,12,,0,144.00\r\n");
    expect(formatBuyers(BUYERS, "table", QUERY)).toBe(
      [
        "Buyers, 2026-11-01 to 2026-11-30 (America/New_York), bots excluded",
        "",
        "buyer   pings  bids  avg_bid  wins  win_rate  returned  revenue",
        "summit    120    80    21.50    30    0.3750         1   645.00",
        "harbor      0     0     0.00    12                   0   144.00",
        "",
      ].join("\n"),
    );
    expect(JSON.parse(formatBuyers(BUYERS, "json", QUERY))).toMatchObject({ since: "2026-11-01", buyers: BUYERS });
    expect(formatBuyers([], "table", QUERY)).toBe("No pings or sales from 2026-11-01 to 2026-11-30 (America/New_York), bots excluded.\n");
  });
});

describe("formatJourney", () => {
  const event = (at: string, name: JourneyEvent["name"], extra: Partial<JourneyEvent> = {}): JourneyEvent => ({
    at,
    name,
    sid: "a1",
    tid: "t1",
    visitId: "v1",
    bot: false,
    gpc: false,
    path: null,
    step: null,
    leadReference: null,
    target: null,
    detail: null,
    revenue: null,
    payout: null,
    bid: null,
    ...extra,
  });

  it("lists the events with millisecond times, cleaning outside text", () => {
    const text = formatJourney(
      "t1",
      [
        event("2026-11-02T14:00:00.120Z", "campaign_hit", { path: "/zipcode\u001b[31m" }),
        event("2026-11-02T14:02:04.300Z", "buyer_pinged", { leadReference: "LD-AAAA-0001", target: "buyer-1", detail: "bid", bid: 25.5 }),
        event("2026-11-02T14:02:05.000Z", "lead_sold", { leadReference: "LD-AAAA-0001", target: "buyer-1", revenue: 25.5, payout: 10 }),
      ],
      "table",
      1000,
    );
    expect(text).toBe(
      [
        "Journey of tid t1: 3 events",
        "",
        "AT (UTC)                 EVENT         SID  TID  VISIT  BOT  GPC  LEAD          STEP  TARGET   DETAIL  PATH           REVENUE  PAYOUT    BID",
        // The escape character of the path's terminal sequence is gone.
        "2026-11-02 14:00:00.120  campaign_hit  a1   t1   v1                                                    /zipcode [31m",
        "2026-11-02 14:02:04.300  buyer_pinged  a1   t1   v1               LD-AAAA-0001        buyer-1  bid                                     25.50",
        "2026-11-02 14:02:05.000  lead_sold     a1   t1   v1               LD-AAAA-0001        buyer-1                           25.50   10.00",
        "",
      ].join("\n"),
    );
  });

  it("says when the list was cut at the limit, and when there is nothing", () => {
    expect(formatJourney("t1", [event("2026-11-02T14:00:00.000Z", "campaign_hit")], "table", 1)).toMatch(/^Journey of tid t1: 1 event \(the first 1: raise --limit for more\)/);
    expect(formatJourney("zz", [], "table", 1000)).toBe("No events with tid zz.\n");
    expect(JSON.parse(formatJourney("t1", [event("2026-11-02T14:00:00.000Z", "campaign_hit")], "json", 1000))).toHaveLength(1);
  });
});

describe("formatScreens", () => {
  const funnel = (sid: string | null): ScreenFunnel => ({
    sid,
    visits: 3,
    leads: 1,
    earlier: 2,
    screens: [
      { screen: "first-screen", position: 1, reached: 3, answered: 2, left: 1, left_rate: 0.3333 },
      { screen: REQUEST_STORED, position: 2, reached: 1, answered: 1, left: 0, left_rate: 0 },
    ],
  });

  it("writes CSV per source only, left_rate to 4 places, a formula-like sid defused", () => {
    expect(formatScreens([funnel(null), funnel("=cmd")], "csv", QUERY)).toBe(
      `sid,position,screen,reached,answered,left,left_rate\r\n'=cmd,1,first-screen,3,2,1,0.3333\r\n'=cmd,2,${REQUEST_STORED},1,1,0,0.0000\r\n`,
    );
  });

  it("says how many visits on an earlier form were left out, and names traffic without a sid", () => {
    const text = formatScreens([funnel(null), funnel(""), funnel("a1")], "table", QUERY);
    expect(text).toContain("All sources: 3 visits in the form, 1 request stored; 2 visits on an earlier form left out");
    expect(text).toContain("Source (none): 3 visits");
    expect(text.indexOf("All sources")).toBeLessThan(text.indexOf("Source (none)"));
  });
});
