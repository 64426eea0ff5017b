/**
 * Where visitors leave the quote form (server/analytics/screen-funnel.ts): the funnel per
 * question screen, per source and for all, over events written the way the server writes them
 * (insertEvents), on both stores. The screens are the form's own (SCREEN_IDS), named only by
 * their place in the flow, so the test holds whatever the screens are called.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertEvents, type EventInput } from "../../server/analytics/store";
import { screenFunnels } from "../../server/analytics/screen-funnel";
import { REQUEST_STORED, type ScreenFunnel, type ScreenFunnelRow } from "../../shared/analytics";
import { SCREEN_IDS } from "../../shared/lead/fields";
import { allStores, type TestDatabase } from "../support/databases";
import { projectRoot } from "../../tools/production-server";

const TIME_ZONE = "America/New_York";
const RANGE = { since: "2026-11-02", until: "2026-11-05", includeBots: false } as const;
const N = SCREEN_IDS.length;
/** A screen id that is not in today's flow: what an earlier form stored. */
const OLD_SCREEN = "screen-of-an-earlier-form";

let clock = Date.parse("2026-11-02T15:00:00Z");
/** Events a minute apart, in the order written (the order does not matter to the funnel). */
function visit(visitId: string, sid: string | null, screens: readonly string[], options: { stored?: "lead_submitted" | "lead_duplicate"; bot?: boolean; at?: string } = {}): EventInput[] {
  let time = options.at ? Date.parse(options.at) : (clock += 3_600_000);
  const at = () => new Date((time += 60_000));
  const base = { sid, tid: `t-${visitId}`, visitId };
  return [
    { name: "form_started", at: at(), ...base },
    ...screens.map((screen): EventInput => ({ name: "form_step_completed", at: at(), ...base, step: 1, detail: screen, bot: options.bot ?? false })),
    ...(options.stored ? [{ name: options.stored, at: at(), ...base, leadReference: `LD-${visitId}` } satisfies EventInput] : []),
  ];
}

const [S0, S1, S2] = [SCREEN_IDS[0]!, SCREEN_IDS[1]!, SCREEN_IDS[2]!];
const ALL = [...SCREEN_IDS];

const EVENTS: EventInput[] = [
  // Source a1.
  ...visit("v1", "a1", ALL, { stored: "lead_submitted" }), // every screen, then a lead
  ...visit("v2", "a1", [S0]), // left at the second screen
  ...visit("v3", "a1", []), // started, left at the first
  ...visit("v4", "a1", [S0, S1, S0]), // went back to the first, answered it again, left at the second (again)
  ...visit("v5", "a1", ALL), // every screen, but no request stored
  ...visit("v6", "a1", [S0, S2]), // the second screen skipped (not for this visitor); left at the fourth
  ...visit("v7", "a1", [S0], { at: "2026-11-05T03:00:00Z" }), // 22:00 on 2026-11-04 in New York: in range
  ...visit("v8", "a1", [S0, S1], { at: "2026-11-02T03:00:00Z" }), // 22:00 on 2026-11-01 in New York: before the range
  ...visit("vb", "a1", [S0], { bot: true }), // a step no person completes that fast
  ...visit("vold", "a1", [OLD_SCREEN]), // a form from before today's screens
  // Source b2: a duplicate request is a request stored too.
  ...visit("w1", "b2", [S0], { stored: "lead_duplicate" }),
  // Traffic without a sid.
  ...visit("x1", null, []),
  // Not the form's: a click and a lead without form events in range count nowhere here.
  { name: "campaign_hit", at: new Date("2026-11-03T12:00:00Z"), sid: "c3", visitId: "y1" },
  { name: "lead_submitted", at: new Date("2026-11-03T12:05:00Z"), sid: "c3", visitId: "y1", leadReference: "LD-y1" },
];

/** Every screen's line, all 0, then the numbers a case has (by position, 0-based; N is the request). */
function rows(numbers: Record<number, Partial<Pick<ScreenFunnelRow, "answered" | "left" | "reached">>>): ScreenFunnelRow[] {
  return [...SCREEN_IDS, REQUEST_STORED].map((screen, index) => {
    const answered = numbers[index]?.answered ?? 0;
    const left = numbers[index]?.left ?? 0;
    const reached = numbers[index]?.reached ?? answered + left;
    return { screen, position: index + 1, reached, answered, left, left_rate: reached === 0 ? 0 : Math.round((left / reached) * 10_000) / 10_000 };
  });
}

/** a1, bots excluded: v1–v7 (v8 is outside the range, vb a bot, vold on an earlier form). */
function a1Numbers(): Record<number, { answered?: number; left?: number; reached?: number }> {
  const numbers: Record<number, { answered?: number; left?: number; reached?: number }> = {};
  // Past the fourth screen, only v1 and v5 answer.
  for (let index = 4; index < N; index += 1) numbers[index] = { answered: 2 };
  numbers[0] = { answered: 6, left: 1 }; // v1 v2 v4 v5 v6 v7; v3 left
  // v1 v4 v5 answered (v6 skipped it); v2, v7 and v4 (back on it after answering the first
  // again) left: v4 reached it once.
  numbers[1] = { answered: 3, left: 3, reached: 5 };
  numbers[2] = { answered: 3 }; // v1 v5 v6
  numbers[3] = { answered: 2, left: 1 }; // v1 v5; v6 left (from the third, visitors went on to the fourth)
  numbers[N] = { answered: 1, left: 1 }; // v1's lead; v5 answered the last screen and stored nothing
  return numbers;
}

describe.each(allStores())("where visitors leave the form ($kind)", (store) => {
  let db: TestDatabase;

  beforeAll(async () => {
    expect(N, "the test needs a flow of at least five screens").toBeGreaterThanOrEqual(5);
    db = await store.open();
    // Two batches, as the writer stores them: a visit's events may land in different statements.
    await insertEvents(db, EVENTS.slice(0, 20), TIME_ZONE);
    await insertEvents(db, EVENTS.slice(20), TIME_ZONE);
  });
  afterAll(() => db?.close());

  it("counts per screen the visits that reached it, answered it and left there, per source and in all", async () => {
    const a1: ScreenFunnel = { sid: "a1", visits: 7, leads: 1, earlier: 1, screens: rows(a1Numbers()) };
    const b2: ScreenFunnel = { sid: "b2", visits: 1, leads: 1, earlier: 0, screens: rows({ 0: { answered: 1 }, [N]: { answered: 1 } }) };
    const none: ScreenFunnel = { sid: "", visits: 1, leads: 0, earlier: 0, screens: rows({ 0: { left: 1 } }) };
    const totals = a1Numbers();
    totals[0] = { answered: 7, left: 2 };
    totals[N] = { answered: 2, left: 1 };
    const all: ScreenFunnel = { sid: null, visits: 9, leads: 2, earlier: 1, screens: rows(totals) };
    expect(await screenFunnels(db, RANGE)).toEqual([all, none, a1, b2]);
  });

  it("leaves bot visits out unless asked", async () => {
    const [, , a1] = await screenFunnels(db, { ...RANGE, includeBots: true });
    expect(a1!.visits).toBe(8);
    // vb answered the first screen and left at the second.
    expect(a1!.screens[0]).toMatchObject({ screen: S0, answered: 7, left: 1, reached: 8 });
    expect(a1!.screens[1]).toMatchObject({ screen: S1, answered: 3, left: 4, reached: 6, left_rate: 0.6667 });
  });

  it("keeps to one source (\"\" for traffic without a sid) and to the range's report days", async () => {
    const [all, b2] = await screenFunnels(db, { ...RANGE, sid: "b2" });
    expect(all).toEqual({ ...b2, sid: null });
    expect(b2!.sid).toBe("b2");
    expect((await screenFunnels(db, { ...RANGE, sid: "" })).map((funnel) => [funnel.sid, funnel.visits])).toEqual([[null, 1], ["", 1]]);
    // 2026-11-01 in New York holds v8 only.
    const [day] = await screenFunnels(db, { since: "2026-11-01", until: "2026-11-02", includeBots: false });
    expect(day).toMatchObject({ visits: 1, leads: 0 });
    expect(day!.screens[2]).toMatchObject({ screen: S2, left: 1 });
    expect(await screenFunnels(db, { since: "2026-10-01", until: "2026-10-02", includeBots: false })).toEqual([{ sid: null, visits: 0, leads: 0, earlier: 0, screens: rows({}) }]);
  });

  it("follows the flow it is given: screens are never named in the code", async () => {
    // The same events under a flow of the first two screens only: the rest are "earlier" screens.
    const [all] = await screenFunnels(db, RANGE, [S0, S1]);
    expect(all!.screens.map((row) => row.screen)).toEqual([S0, S1, REQUEST_STORED]);
    // v1, v5 and v6 (a third screen) and vold are now on an "earlier" form; w1, v2, v3, v4, v7, x1 remain.
    expect(all).toMatchObject({ visits: 6, earlier: 4 });
    expect(all!.screens[1]).toMatchObject({ answered: 1, left: 3, reached: 3 }); // v4; v2, v7, v4
    expect(all!.screens[2]).toMatchObject({ answered: 1, left: 0 }); // w1 stored
  });

  it("counts a leaver at the screen visitors went on to: a screen some skip, a second car's screens", async () => {
    // On a day of its own: from the first screen, visitors go on to the third (the second is one
    // they skip); one visitor enters a second car (the first three screens again).
    const day = { since: "2026-11-20", until: "2026-11-21", includeBots: false };
    const S3 = SCREEN_IDS[3]!;
    const at = "2026-11-20T15:00:00Z";
    await insertEvents(
      db,
      [
        ...visit("k1", "k9", [S0, S2, S3], { stored: "lead_submitted", at }),
        ...visit("k2", "k9", [S0, S2], { at }), // left after the third: at the fourth
        ...visit("k4", "k9", [S0, S2, S3], { stored: "lead_submitted", at }),
        ...visit("k5", "k9", [S0, S2, S3], { stored: "lead_submitted", at }),
        ...visit("k3", "k9", [S0], { at }), // left after the first: at the third, where visitors went on to
        ...visit("m1", "k9", [S0, S1, S2, S0, S1, S2, S3], { stored: "lead_submitted", at }), // a second car
        ...visit("m2", "k9", [S0, S1, S2, S0], { at }), // left on the second car, after its first screen
      ],
      TIME_ZONE,
    );
    const [all] = await screenFunnels(db, day);
    // From the first completion of S0, visitors went on to S2 four times (k1 k2 k4 k5) and to S1
    // twice (m1 m2); from its second, to S1 (m1); from the first of S2, to S3 three times (k1 k4
    // k5) and back to S0 twice (m1 m2, adding a car).
    expect(all!.screens[1]).toMatchObject({ screen: S1, answered: 2, left: 1, reached: 2 }); // m2, who had answered it for the first car
    expect(all!.screens[2]).toMatchObject({ screen: S2, answered: 6, left: 1, reached: 7 }); // k3, not at S1 which it would have skipped
    expect(all!.screens[3]).toMatchObject({ screen: S3, answered: 4, left: 1, reached: 5 }); // k2
    expect(all).toMatchObject({ visits: 7, leads: 4 });
    expect(all!.screens.reduce((sum, row) => sum + row.left, 0)).toBe(3);
  });

  it("lists today's flow in the SQL of docs/analytics.md, for analysts who copy it", () => {
    const docs = readFileSync(path.join(projectRoot, "docs", "analytics.md"), "utf8");
    const literal = /string_to_array\(((?:\s*'[^']*')+), ','\)/.exec(docs)?.[1] ?? "";
    const listed = [...literal.matchAll(/'([^']*)'/g)].map((match) => match[1]).join("");
    expect(listed.split(","), "update the flow in docs/analytics.md's \"funnel per question screen\" to SCREEN_IDS").toEqual([...SCREEN_IDS]);
  });

  it("gives the same numbers as the SQL in docs/analytics.md, bots excluded and included", async () => {
    const docs = readFileSync(path.join(projectRoot, "docs", "analytics.md"), "utf8");
    const block = [...docs.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1]!).find((text) => text.startsWith("-- funnel per question screen\n"));
    expect(block, "docs/analytics.md has the SQL of the funnel per question screen").toBeDefined();
    for (const includeBots of [false, true]) {
      const text = block!
        .split("\n")
        .filter((line) => !(includeBots && line.includes("-- without this line, bots count too")))
        .join("\n")
        .replace("DATE '2026-11-01'", `DATE '${RANGE.since}'`)
        .replace("DATE '2026-12-01'", `DATE '${RANGE.until}'`)
        // Today's flow, whatever the docs list.
        .replace(/string_to_array\((?:\s*'[^']*')+, ','\)/, `string_to_array('${SCREEN_IDS.join(",")}', ',')`);
      const { rows: found } = await db.query<Record<string, unknown>>(text);
      const expected = (await screenFunnels(db, { ...RANGE, includeBots }))
        .filter((funnel) => funnel.sid !== null)
        .flatMap((funnel) => funnel.screens.map((row) => ({ sid: funnel.sid, ...row })));
      const fromDocs = found.map((raw) => ({
        sid: raw.sid,
        screen: raw.screen,
        position: Number(raw.position),
        reached: Number(raw.reached),
        answered: Number(raw.answered),
        left: Number(raw.left),
        left_rate: Number(raw.left_rate),
      }));
      expect(fromDocs, `bots ${includeBots}`).toEqual(expected);
    }
  });
});
