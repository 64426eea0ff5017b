/**
 * `npm run report -- screens` (server/cli/report.ts): where visitors leave the quote form, per
 * question screen, as a table, CSV and JSON, with its filters and its usage errors, on both
 * stores, through the store named by the environment as in production. Screens are named only
 * by their place in the form's flow (SCREEN_IDS), so the test holds whatever they are called.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../server/cli/report";
import { UsageError } from "../../server/cli/common";
import { insertEvents, type EventInput } from "../../server/analytics/store";
import { REQUEST_STORED, SCREEN_FUNNEL_COLUMNS } from "../../shared/analytics";
import { SCREEN_IDS } from "../../shared/lead/fields";
import { commandStores, withCommandStore, type CommandStore } from "../support/databases";
import { projectRoot } from "../../tools/production-server";

const TIME_ZONE = "America/New_York";
const SCRIPT = path.join(projectRoot, "server", "cli", "report.ts");
const [S0, S1] = [SCREEN_IDS[0]!, SCREEN_IDS[1]!];
const N = SCREEN_IDS.length;

let minute = 0;
function visit(visitId: string, sid: string, screens: readonly string[], options: { lead?: boolean; bot?: boolean } = {}): EventInput[] {
  const at = () => new Date(Date.parse("2026-11-02T15:00:00Z") + (minute += 1) * 60_000);
  const base = { sid, visitId };
  return [
    { name: "form_started", at: at(), ...base },
    ...screens.map((screen): EventInput => ({ name: "form_step_completed", at: at(), ...base, step: 1, detail: screen, bot: options.bot ?? false })),
    ...(options.lead ? [{ name: "lead_submitted", at: at(), ...base, leadReference: `LD-${visitId}` } satisfies EventInput] : []),
  ];
}

const EVENTS: EventInput[] = [
  ...visit("v1", "a1", SCREEN_IDS, { lead: true }), // every screen and a lead
  ...visit("v2", "a1", [S0]), // left at the second screen
  ...visit("v3", "a1", []), // left at the first
  ...visit("vb", "a1", [S0, S1], { bot: true }), // a bot: out unless --bots
  ...visit("w1", "b2", [S0, S1]), // left at the third
];

async function runReport(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; text: string }> {
  let text = "";
  const code = await run(argv, (chunk) => (text += chunk), env);
  return { code, text };
}

/** The CSV line of one source's screen at `index` (N: the request). */
const line = (sid: string, index: number, reached: number, answered: number, left: number) =>
  [sid, index + 1, index === N ? REQUEST_STORED : SCREEN_IDS[index], reached, answered, left, (reached === 0 ? 0 : left / reached).toFixed(4)].join(",");

describe.each(commandStores({ REPORT_TIME_ZONE: TIME_ZONE }))("npm run report -- screens ($kind)", ({ make }) => {
  let store: CommandStore;
  const range = ["screens", "--since", "2026-11-01", "--until", "2026-11-05"];

  beforeAll(async () => {
    store = await make();
    await withCommandStore(store, (db) => insertEvents(db, EVENTS, TIME_ZONE));
  });
  afterAll(() => store?.remove());

  it("writes every screen of each source as CSV, in flow order, the request last", async () => {
    const { code, text } = await runReport([...range, "--format", "csv"], store.env);
    expect(code).toBe(0);
    const lines = text.split("\r\n");
    expect(lines[0]).toBe(SCREEN_FUNNEL_COLUMNS.join(","));
    const a1 = lines.slice(1, N + 2);
    const b2 = lines.slice(N + 2, 2 * N + 3);
    expect(lines).toHaveLength(2 * (N + 1) + 2); // header, two sources, the empty end
    expect(a1[0]).toBe(line("a1", 0, 3, 2, 1));
    expect(a1[1]).toBe(line("a1", 1, 2, 1, 1));
    expect(a1[2]).toBe(line("a1", 2, 1, 1, 0));
    expect(a1[N]).toBe(line("a1", N, 1, 1, 0));
    expect(b2[0]).toBe(line("b2", 0, 1, 1, 0));
    expect(b2[1]).toBe(line("b2", 1, 1, 1, 0));
    expect(b2[2]).toBe(line("b2", 2, 1, 0, 1));
    expect(b2[N]).toBe(line("b2", N, 0, 0, 0));
  });

  it("prints a table: all sources first, then each source, with its visits and requests", async () => {
    const { code, text } = await runReport(range, store.env);
    expect(code).toBe(0);
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe(`Where visitors leave the form, 2026-11-01 to 2026-11-04 (${TIME_ZONE}), bots excluded (the last line, ${REQUEST_STORED}, is the request itself)`);
    expect(lines[2]).toBe("All sources: 4 visits in the form, 1 request stored");
    expect(lines[3]!.split(/ +/)).toEqual(["screen", "reached", "answered", "left", "left_rate"]);
    expect(lines[4]!.split(/ +/)).toEqual([S0, "4", "3", "1", "0.2500"]);
    expect(lines).toContain("Source a1: 3 visits in the form, 1 request stored");
    expect(lines).toContain("Source b2: 1 visit in the form, 0 requests stored");
  });

  it("keeps to one source with --sid, counts bots with --bots, and gives JSON", async () => {
    const json = JSON.parse((await runReport([...range, "--format", "json", "--sid", "a1", "--bots"], store.env)).text);
    expect(json).toMatchObject({ since: "2026-11-01", until: "2026-11-05", bots: true, sid: "a1", timeZone: TIME_ZONE });
    expect(json.funnels.map((funnel: { sid: string | null; visits: number }) => [funnel.sid, funnel.visits])).toEqual([[null, 4], ["a1", 4]]);
    expect(json.funnels[1].screens[1]).toEqual({ screen: S1, position: 2, reached: 3, answered: 2, left: 1, left_rate: 0.3333 });
    // One source: its table alone (the total would repeat it).
    const { text } = await runReport([...range, "--sid", "b2"], store.env);
    expect(text).toContain("Source b2: 1 visit in the form");
    expect(text).not.toContain("All sources");
    expect(await runReport([...range, "--sid", "zz"], store.env)).toEqual({ code: 0, text: `No quote form traffic from 2026-11-01 to 2026-11-04 (${TIME_ZONE}), bots excluded, sid zz.\n` });
  });

  it("refuses options that do not apply, as usage mistakes", async () => {
    await expect(runReport([...range, "--by", "sid"], store.env)).rejects.toThrow(new UsageError("--by does not apply to the screens view (it is per source)."));
    await expect(runReport([...range, "--limit", "3"], store.env)).rejects.toThrow(UsageError);
    // Without --since: the console's default range (tests/db/report-cli.test.ts), not a usage mistake.
    expect((await runReport(["screens", "--until", "2026-11-05"], store.env)).text).toContain("Source b2: 1 visit in the form");
    await expect(runReport([...range, "--format", "xml"], store.env)).rejects.toThrow("Unknown format xml: use table, csv or json.");
  });

  it("runs as a script: exit 0 with the CSV, exit 2 with a message for a bad date", () => {
    const script = (...argv: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", SCRIPT, ...argv], { cwd: projectRoot, env: { PATH: process.env.PATH, ...store.env }, encoding: "utf8", timeout: 30_000 });
    const done = script(...range, "--format", "csv", "--sid", "b2");
    expect(done.status).toBe(0);
    expect(done.stdout.split("\r\n")[1]).toBe(line("b2", 0, 1, 1, 0));
    const mistake = script("screens", "--since", "2026-11-01", "--until", "2026-10-01");
    expect(mistake.status).toBe(2);
    expect(mistake.stderr).toBe("--until must be after --since (until is the day after the last one reported).\n");
    expect(mistake.stdout).toBe("");
  });
});
