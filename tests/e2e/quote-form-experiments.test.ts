/**
 * The quote form's A/B variants in a real Chromium (issue 45, docs/experiments.md "The quote
 * form's variants"): the built server with two experiments from its settings, each for one source
 * and with every visitor in its variant, and the phone visitor of issue 32 (tools/phone-visitor.ts,
 * 390×664 with touch) walked from the ad link. In the skip variant the visitor reaches the contact
 * screen without the coverage question, one tap fewer than the control's walk, the count true on
 * every screen, and the stored lead has coverage "standard"; in the coverage-first variant the
 * coverage question comes before the insurer's. Each visitor's exposure is stored once.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./helpers";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { openDatabase, type Database } from "../../server/db/database";
import { leadRepository } from "../../server/db/leads";
import { EXPERIMENT_COOKIE, SKIPPED_COVERAGE_DEFAULT } from "../../shared/experiments";
import { PHONE_CONTEXT, walkPhoneVisitor, type PhoneVisitReport } from "../../tools/phone-visitor";

let harness: Harness;
let postgres: FreshPostgres;
let db: Database;
let folder: string;

/** A running form experiment for one source, everyone in the variant (the control's share 0), so a walk needs no chosen cookie. */
const experiment = (id: string, sid: string, values: Record<string, boolean>) => ({
  id,
  name: `Form experiment ${id}`,
  hypothesis: "A shorter or reordered household part brings more leads",
  status: "running",
  sids: [sid],
  variants: [
    { id: "control", name: "Control", share: 0 },
    { id: "variant", name: "Variant", share: 100, values },
  ],
  startAt: "2020-01-01T00:00:00Z",
});

beforeAll(async () => {
  postgres = await freshPostgresUrl();
  folder = mkdtempSync(path.join(os.tmpdir(), "form-experiments-"));
  const buyersFile = path.join(folder, "buyers.json");
  writeFileSync(
    buyersFile,
    JSON.stringify({
      buyers: [],
      sources: [],
      experiments: [experiment("skip-coverage", "skip-sid", { "form.skipCoverage": true }), experiment("coverage-first", "first-sid", { "form.coverageFirst": true })],
    }),
  );
  // A short minimum fill time (a browser is faster than a person) and exposures written at once.
  harness = await startHarness({ DATABASE_URL: postgres.url, BUYERS_FILE: buyersFile, LEAD_MIN_FILL_MS: "300", ANALYTICS_FLUSH_MS: "50", CSRF_SECRET: "e".repeat(40) });
  db = await openDatabase({ DATABASE_URL: postgres.url, DATA_DIR: "unused" });
}, 90_000);

afterAll(async () => {
  await db?.close();
  await harness?.close();
  await postgres?.drop();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/**
 * A phone's browser as it names itself: headless Chromium's own name says "HeadlessChrome", which
 * the server takes for a script (isbot) and, as it should, never puts in an experiment.
 */
const PHONE_BROWSER = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";

/** One phone visitor from an ad of `sid`, in a fresh browser: the walk's report and the qr_vis cookie it was given. */
async function walk(sid: string): Promise<{ report: PhoneVisitReport; visitorId: string | undefined }> {
  const context = await harness.newContext({ ...PHONE_CONTEXT, userAgent: PHONE_BROWSER });
  const report = await walkPhoneVisitor(await context.newPage(), { origin: harness.server.origin, sid, tid: `${sid}-click` });
  const visitorId = (await context.cookies()).find((cookie) => cookie.name === EXPERIMENT_COOKIE)?.value;
  await context.close();
  return { report, visitorId };
}

/** The count on every screen is "Question N of M", moves on every screen, and ends at M of M on the contact screen. */
function expectCoherentCount(report: PhoneVisitReport): void {
  for (const record of report.records) expect(record.count, record.id).toMatch(/^Question \d+ of \d+$/);
  for (const record of report.records.slice(1)) {
    expect(record.countChanged, `count moved on ${record.id}`).toBe(true);
    expect(record.focusOnHeading, `heading focused on ${record.id}`).toBe(true);
  }
  const last = report.records.at(-1)!;
  expect(last.id).toBe("contact");
  const [, at, of] = /^Question (\d+) of (\d+)$/.exec(last.count)!;
  expect(at).toBe(of);
  // One record per screen asked: the count's last number is the questions walked.
  expect(Number(of)).toBe(report.records.length);
}

/** The exposures stored for a visitor (written in batches: waited for). */
async function exposuresOf(visitorId: string): Promise<{ experiment: string; variant: string; sid: string | null; tid: string | null }[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await db.query<{ experiment: string; variant: string; sid: string | null; tid: string | null }>("SELECT experiment, variant, sid, tid FROM experiment_exposures WHERE visitor_id = $1 ORDER BY experiment", [visitorId]);
    if (rows.rows.length > 0 || Date.now() > deadline) return rows.rows;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the quote form's variants, walked by a phone visitor", () => {
  let control: Awaited<ReturnType<typeof walk>>;
  beforeAll(async () => {
    control = await walk("plain-sid");
  }, 120_000);

  it("asks the control's every question for a source without an experiment, and sets no visitor cookie", () => {
    expect(control.report.thankYou).toBe(true);
    expect(control.report.records.map((record) => record.id)).toEqual(expect.arrayContaining(["insurer", "insured-for", "coverage", "residence"]));
    expect(control.visitorId).toBeUndefined();
    expectCoherentCount(control.report);
  });

  it("skips the coverage question in the skip variant: one tap fewer, the count true, the lead stored with coverage standard", async () => {
    const { report, visitorId } = await walk("skip-sid");
    expect(report.stuck).toBeUndefined();
    expect(report.thankYou).toBe(true);
    const ids = report.records.map((record) => record.id);
    expect(ids).not.toContain("coverage");
    expect(ids.slice(-4)).toEqual(["insurer", "insured-for", "residence", "contact"]);
    expect(report.taps).toBe(control.report.taps - 1);
    expect(report.chars).toBe(control.report.chars);
    expect(report.records).toHaveLength(control.report.records.length - 1);
    expect(report.questionScrolls).toBe(0);
    expectCoherentCount(report);

    const lead = await leadRepository(db).findByReference(report.reference ?? "");
    expect(lead).toMatchObject({ sid: "skip-sid", coverage: SKIPPED_COVERAGE_DEFAULT });
    expect(lead?.consent).toMatchObject({ checkboxChecked: true });

    expect(visitorId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await exposuresOf(visitorId!)).toEqual([{ experiment: "skip-coverage", variant: "variant", sid: "skip-sid", tid: "skip-sid-click" }]);
  }, 120_000);

  it("asks coverage before the insurer in the coverage-first variant, with as many taps as the control", async () => {
    const { report, visitorId } = await walk("first-sid");
    expect(report.thankYou).toBe(true);
    const ids = report.records.map((record) => record.id);
    expect(ids.slice(-6)).toEqual(["drivers", "coverage", "insurer", "insured-for", "residence", "contact"]);
    expect(report.taps).toBe(control.report.taps);
    expectCoherentCount(report);
    const lead = await leadRepository(db).findByReference(report.reference ?? "");
    expect(lead).toMatchObject({ sid: "first-sid", coverage: "standard", currentInsurer: "GEICO" });
    expect(await exposuresOf(visitorId!)).toEqual([{ experiment: "coverage-first", variant: "variant", sid: "first-sid", tid: "first-sid-click" }]);
  }, 120_000);
});
