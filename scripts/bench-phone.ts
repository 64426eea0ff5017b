/**
 * `npm run bench:phone`: one phone visitor from an ad, through the real quote form to the
 * thank-you (issue 32, item 10). The built production server (its own embedded store), system
 * Chromium at 390×664 CSS px with touch, and the walker the browser test uses
 * (tools/phone-visitor.ts) with a person's pauses: reading each screen, thinking before a tap,
 * typing at 5 characters a second. Prints the screens, taps, typed characters and Enter keys,
 * scrolls, the time from the first question to the thank-you, any screen that did not fit, and a
 * verdict per target of issue 32 beside the figures measured on the form before it (from
 * ../shared/notes/phone-flow.md, 2026-11-27). A report, not a test: a MISS still exits 0; only a
 * broken run (no server, no browser, no thank-you) exits 1.
 *
 * Then the same visitor twice more, each with one typo on the contact screen that they correct
 * (issue 42: the phone or the email left short, the consent box tapped, then a tap back into the
 * field and the rest typed): their taps, which must be exactly one more than the clean walk's.
 *
 * Options: --no-pauses (the test's pace: a quick look, not the time a person takes); --no-typos
 * (the clean walk only).
 */
import { parseArgs } from "node:util";
import { chromium, type Browser } from "playwright";
import { CHROMIUM_ARGS, findChromium } from "../tools/chromium";
import { startProductionServer, type RunningServer } from "../tools/production-server";
import { PHONE_CONTEXT, walkPhoneVisitor, type ContactTypo, type PhoneVisitReport } from "../tools/phone-visitor";

const log = (message: string) => process.stderr.write(`[bench:phone] ${message}\n`);

/**
 * The old form (eight question and review screens with selects), walked the same way on
 * 2026-11-27: ../shared/notes/phone-flow.md. Scrolls were not counted then, but Next started
 * below the visible part of the frame on every question screen, so each needed one at least.
 */
const BEFORE = { screens: 8, taps: 42, chars: 88, nextBelowTheFold: "every screen" } as const;

/** Issue 32's ceiling: taps, with the characters typed on top. */
const TAP_TARGET = 25;

interface Verdict {
  name: string;
  pass: boolean;
  actual: string;
}

function verdictsOf(report: PhoneVisitReport): Verdict[] {
  return [
    { name: "0 scrolls on question screens", pass: report.questionScrolls === 0, actual: `${report.questionScrolls}` },
    { name: "every question screen fits 390×664", pass: report.notFitting.length === 0, actual: report.notFitting.length === 0 ? "all fit" : report.notFitting.join(", ") },
    { name: "0 overlays over a focused control", pass: report.overlaps.length === 0, actual: report.overlaps.length === 0 ? "0" : report.overlaps.join(", ") },
    { name: `taps ≤ ${TAP_TARGET} (plus characters typed)`, pass: report.taps <= TAP_TARGET, actual: `${report.taps} taps + ${report.chars} characters` },
    { name: "reaches the thank-you", pass: report.thankYou, actual: report.thankYou ? `reference ${report.reference ?? "?"}` : `stopped at ${report.stuck ?? "?"}` },
  ];
}

function print(report: PhoneVisitReport, pauses: boolean): void {
  const out: string[] = [];
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  out.push("", `Phone visitor: one car, one driver, 390×664 CSS px with touch, ${pauses ? "a person's pauses" : "no pauses"}`, "");
  out.push(`                              before (old form)     now`);
  out.push(`  screens                     ${String(BEFORE.screens).padEnd(22)}${report.screens}`);
  out.push(`  taps                        ${String(BEFORE.taps).padEnd(22)}${report.taps}`);
  out.push(`  typed characters            ${String(BEFORE.chars).padEnd(22)}${report.chars} (and ${report.enters} Enter keys)`);
  out.push(`  scrolls                     ${"Next below the fold".padEnd(22)}${report.scrolls} (${report.questionScrolls} on question screens)`);
  out.push(`  first question → thank-you  ${"not measured".padEnd(22)}${report.thankYou ? seconds(report.msFromFirstQuestionToThankYou) : "not reached"}`);
  out.push("", "Screens:");
  for (const record of report.records) {
    const marks = [
      record.fit ? "fits" : record.scrollAllowed ? "scrolls (allowed)" : "DOES NOT FIT",
      record.focusOnHeading === false ? "heading NOT focused" : "",
      record.countChanged === false ? "count unchanged" : "",
      record.overlap.length ? `overlay: ${record.overlap.join(", ")}` : "",
      record.scrolls ? `${record.scrolls} scroll${record.scrolls === 1 ? "" : "s"}` : "",
    ].filter(Boolean);
    out.push(`  ${record.count.padEnd(18)} ${record.heading.padEnd(48)} ${record.taps} tap${record.taps === 1 ? "" : "s"}, ${record.chars} chars  ${marks.join("; ")}`);
    for (const part of record.outOfView) out.push(`      out of view: ${part}`);
  }
  out.push("", "Targets (issue 32):");
  for (const verdict of verdictsOf(report)) out.push(`  ${verdict.pass ? "PASS" : "MISS"}  ${verdict.name}: ${verdict.actual}`);
  process.stdout.write(`${out.join("\n")}\n`);
}

/** Issue 42: a corrected typo costs the tap back into the field, nothing more. */
function printTypos(clean: PhoneVisitReport, walks: [ContactTypo, PhoneVisitReport][]): void {
  const out: string[] = ["", "One typo on the contact screen, corrected (issue 42):"];
  const contactTaps = (report: PhoneVisitReport) => report.records.find((record) => record.id === "contact")?.taps ?? 0;
  out.push(`  ${"no typo".padEnd(44)} ${String(clean.taps).padStart(2)} taps (${contactTaps(clean)} on the contact screen), ${clean.chars} characters`);
  for (const [typo, report] of walks) {
    const what = `${typo} left short, box tapped, ${typo} finished`;
    const end = report.thankYou ? "" : `  — stopped at ${report.stuck ?? "?"}`;
    out.push(`  ${what.padEnd(44)} ${String(report.taps).padStart(2)} taps (${contactTaps(report)} on the contact screen), ${report.chars} characters, ${report.questionScrolls} scrolls on question screens${end}`);
  }
  const pass = walks.every(([, report]) => report.thankYou && report.taps === clean.taps + 1 && report.chars === clean.chars);
  const actual = walks.map(([typo, report]) => `${typo} ${report.taps - clean.taps >= 0 ? "+" : ""}${report.taps - clean.taps}`).join(", ");
  out.push("", "Target (issue 42):", `  ${pass ? "PASS" : "MISS"}  a corrected typo costs exactly one more tap (the tap back into the field): ${actual}`);
  process.stdout.write(`${out.join("\n")}\n`);
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { "no-pauses": { type: "boolean" }, "no-typos": { type: "boolean" } } });
  const pauses = !values["no-pauses"];
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  try {
    log("starting the production server and Chromium…");
    // Without pauses the walk is faster than the server's bot threshold for a form (4 s).
    [server, browser] = await Promise.all([
      startProductionServer(pauses ? {} : { LEAD_MIN_FILL_MS: "0" }, { keepLogs: "problems" }),
      chromium.launch({ executablePath: findChromium("npm run bench:phone"), args: CHROMIUM_ARGS, headless: true }),
    ]);
    const context = await browser.newContext(PHONE_CONTEXT);
    const page = await context.newPage();
    log(`walking ${server.origin}/ as a phone visitor${pauses ? " at a person's pace (about a minute)" : ""}…`);
    const report = await walkPhoneVisitor(page, { origin: server.origin, sid: "bench-phone", tid: "bench-phone", pauses, log: (line) => log(`  ${line}`) });
    print(report, pauses);
    if (!report.thankYou) return 1;
    if (values["no-typos"]) return 0;
    const walks: [ContactTypo, PhoneVisitReport][] = [];
    for (const typo of ["phone", "email"] as const) {
      log(`walking again with the ${typo} left short at first, then corrected…`);
      const again = await browser.newContext(PHONE_CONTEXT);
      walks.push([typo, await walkPhoneVisitor(await again.newPage(), { origin: server.origin, sid: "bench-phone", tid: `typo-${typo}`, pauses, typo, log: (line) => log(`  ${line}`) })]);
      await again.close();
    }
    printTypos(report, walks);
    return walks.every(([, walk]) => walk.thankYou) ? 0 : 1;
  } finally {
    await browser?.close();
    await server?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`[bench:phone] FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
