/**
 * TrustedForm and Jornaya LeadiD on the quote form in a real Chromium (issue 44, items 1 and 2):
 * with both switched on and pointed at local fakes (tools/check-fakes.ts), a phone visitor at
 * 390×664 with touch goes from the ad link to the thank-you; the form frame loads both scripts
 * (its CSP allowing them, nothing blocked), each writes its hidden input, and the lead's consent
 * record holds the certificate URL and the token. The landing page never asks for a third-party
 * script; with both switched off, neither does the form.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright";
import { collectProblems, expectNoProblems, isSandboxNote, siteOnFreshPostgres, startHarness, type Harness, type ProblemCollector } from "./helpers";
import { startCheckFakes, type CheckFakes } from "../../tools/check-fakes";
import { PHONE_CONTEXT, quoteFrame, walkPhoneVisitor, type PhoneVisitReport } from "../../tools/phone-visitor";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";
import { paths } from "../../shared/routes";

/**
 * The server's configuration: filled in once the fakes listen. The fakes' hook is registered
 * first, so it runs before siteOnFreshPostgres's, which reads this object when it starts the server.
 */
const env: Record<string, string> = { LEAD_MIN_FILL_MS: "300" }; // a browser fills the form faster than a person
let fakes: CheckFakes;
beforeAll(async () => {
  fakes = await startCheckFakes();
  // Only the capture half's switches: the scripts and the certificates' origin, no provider API.
  Object.assign(env, {
    TRUSTEDFORM: "on",
    TRUSTEDFORM_SCRIPT_URL: `${fakes.origin}/trustedform.js`,
    TRUSTEDFORM_CERT_ORIGIN: fakes.certOrigin,
    JORNAYA: "on",
    JORNAYA_SCRIPT_URL: `${fakes.origin}/leadid.js`,
  });
});
afterAll(async () => {
  await fakes?.close();
});
const stored = siteOnFreshPostgres(env);

/** Every request the context's pages and frames make, by URL. */
function recordRequests(context: BrowserContext): string[] {
  const seen: string[] = [];
  context.on("request", (request) => seen.push(request.url()));
  return seen;
}

/** The requests to any origin but the site's own (data: and blob: addresses are not requests out). */
const elsewhere = (requests: readonly string[], siteOrigin: string) => requests.filter((url) => /^https?:/.test(url) && new URL(url).origin !== siteOrigin);

describe("with TRUSTEDFORM and JORNAYA on (the fakes' scripts)", () => {
  let page: Page;
  let requests: string[];
  let problems: ProblemCollector;
  let report: PhoneVisitReport;

  beforeAll(async () => {
    const context = await stored.harness.newContext(PHONE_CONTEXT);
    requests = recordRequests(context);
    page = await context.newPage();
    problems = await collectProblems(context, page);
    report = await walkPhoneVisitor(page, { origin: stored.harness.server.origin, sid: "proof-sid", tid: "proof-tid" });
  }, 120_000);

  it("loads both scripts in the form's frame, and nothing else from another origin", () => {
    expect(report.stuck).toBeUndefined();
    expect(report.thankYou).toBe(true);
    const outside = elsewhere(requests, stored.harness.server.origin).map((url) => new URL(url));
    expect(outside.map((url) => url.pathname).sort()).toEqual(["/leadid.js", "/trustedform.js"]);
    const trustedForm = outside.find((url) => url.pathname === "/trustedform.js")!;
    // As TrustedForm's snippet asks for it.
    expect(trustedForm.searchParams.get("field")).toBe("xxTrustedFormCertUrl");
    expect(trustedForm.searchParams.get("use_tagged_consent")).toBe("true");
    expect(trustedForm.searchParams.get("l")).toMatch(/^\d{13}0\.\d+$/);
  });

  it("writes the scripts' hidden inputs into the form, and blocks nothing under the form's CSP", async () => {
    await expectNoProblems(page, problems, isSandboxNote);
  });

  it("stores the certificate URL and the LeadiD token with the lead's consent record", async () => {
    expect(report.reference).toMatch(LEAD_REFERENCE_PATTERN);
    const row = await stored.db.builder.selectFrom("leadConsents").select(["trustedformCertUrl", "leadidToken"]).where("leadReference", "=", report.reference!).executeTakeFirstOrThrow();
    expect(row.trustedformCertUrl).toMatch(new RegExp(`^${fakes.certOrigin.replaceAll(".", "\\.")}/[0-9a-f]{40}$`));
    expect(row.leadidToken).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
  });

  it("the script element ids and Jornaya's input are the snippets' own", async () => {
    const frame = quoteFrame(page);
    expect(await frame.evaluate(() => [...document.scripts].map((script) => script.id).filter(Boolean).sort())).toEqual(["LeadiDscript_campaign", "xxTrustedFormScript"]);
  });

  it("asks for no third-party script on the landing page /zipcode", async () => {
    const context = await stored.harness.newContext(PHONE_CONTEXT);
    const seen = recordRequests(context);
    const landing = await context.newPage();
    await landing.goto(stored.harness.url(`${paths.landing}?zip=90210&sid=proof-sid`), { waitUntil: "networkidle" });
    expect(seen.length).toBeGreaterThan(0);
    expect(elsewhere(seen, stored.harness.server.origin)).toEqual([]);
    await context.close();
  });
});

describe("with both off (the default)", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  }, 90_000);
  afterAll(async () => {
    await harness?.close();
  });

  it("the framed form asks for no third-party script, and has no hidden proof inputs", async () => {
    const context = await harness.newContext(PHONE_CONTEXT);
    const seen = recordRequests(context);
    const page = await context.newPage();
    await page.goto(harness.url("/?zip=90210&sid=off-sid&tid=off-tid"), { waitUntil: "networkidle" });
    const frame = quoteFrame(page);
    await frame.locator(".rf-next:not([disabled])").waitFor();
    expect(seen.some((url) => new URL(url).pathname === paths.leadsSession)).toBe(true);
    expect(elsewhere(seen, harness.server.origin)).toEqual([]);
    expect(await frame.evaluate(() => document.querySelectorAll('input[name="xxTrustedFormCertUrl"], #leadid_token').length)).toBe(0);
    await context.close();
  });
});
