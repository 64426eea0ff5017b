/**
 * Every page the site and the operations console serve is valid HTML: the real documents, as the
 * real apps answer them, go through the Nu HTML checker (vnu-jar, the W3C validator's engine) in
 * one Java run, and the test fails on any error or warning it reports, each listed with its page,
 * line and extract (issue 34).
 *
 * Allowed, each by its exact words (SANDBOX_WARNING, ANCHOR_POSITIONING_CSS below), and nothing else:
 * - One warning, only on the quote page: the quote frame's sandbox has both `allow-scripts` and
 *   `allow-same-origin`. The spec asks for both (the form is our own same-origin page: it runs its
 *   scripts and reaches its own storage and API), so the checker's reminder that such a document
 *   can lift its own sandbox is expected there, once, and nowhere else; the test checks it is there.
 * - Five CSS messages, only inside a `<style>` element: the "Why?" toggletip's CSS Anchor
 *   Positioning (`anchor-name`, `position-anchor`, `anchor()`, `position-try-fallbacks`;
 *   client/styles.css, decision 029). It is valid CSS (CSS Anchor Positioning Module Level 1,
 *   shipped in Chromium) that the checker's CSS grammar does not know yet. It stays in the page's
 *   inlined stylesheet because the toggletip works before hydration and without JavaScript, and
 *   the stylesheet is inlined so it does not block the first paint (build/inline-stylesheet.ts).
 *
 * Needs a Java runtime (11+): `$JAVA_HOME/bin/java`, or `java` on the PATH (`apt-get install -y
 * default-jre-headless`; .ci/run installs it when missing).
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app";
import { createAdminApp } from "../../server/admin/app";
import { analyticsReports } from "../../server/admin/reports";
import { renderAdminFrom } from "../../server/admin/render-source";
import { loadProductionBuild } from "../../server/pages/render-source";
import { loadBuyersFile } from "../../server/delivery/buyers";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { insertEvents } from "../../server/analytics/store";
import type { Database } from "../../server/db/database";
import { deliveryRepository, type Completion } from "../../server/db/deliveries";
import { projectRoot } from "../../tools/production-server";
import { sampleNewLead } from "../../tools/lead-session";
import { addUsers, cookieHeader, csrfOf, jar, remember, type Agent } from "../support/admin-agent";
import { fixedSettings } from "../support/settings";
import { captureLogs } from "../support/log-capture";
import { leadStore } from "../../server/leads/store";

/** vnu-jar's main export is the path of vnu.jar (a String object). */
const VNU_JAR = String(createRequire(import.meta.url)("vnu-jar"));
const ZONE = "America/New_York";
const OPS = { name: "olivia", password: "olivia's long password" };
const ANALYST = { name: "andy", password: "andy's long password!" };
const BUYERS = loadBuyersFile(path.join(projectRoot, "deploy", "buyers.example.json"));

/** The quote frame's sandbox, as the spec asks (see above). */
const SANDBOX_WARNING =
  "Potentially bad value “allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox” for attribute “sandbox” on element “iframe”: Setting both “allow-scripts” and “allow-same-origin” is not recommended, because it effectively enables an embedded page to break out of all sandboxing.";

/** CSS Anchor Positioning, valid CSS the checker does not know (see above): allowed in a <style> element only. */
const ANCHOR_POSITIONING_CSS = new Set([
  "CSS: “anchor-name”: Property “anchor-name” doesn't exist.",
  "CSS: “position-anchor”: Property “position-anchor” doesn't exist.",
  "CSS: “top”: “anchor(bottom)” is not a “top” value.",
  "CSS: “right”: “anchor(right)” is not a “right” value.",
  "CSS: “position-try-fallbacks”: Property “position-try-fallbacks” doesn't exist.",
]);

interface Finding {
  page: string;
  type: string;
  message: string;
  line?: number;
  column?: number;
  extract?: string;
}

/** Whether the checker's position (1-based line and column) is inside a <style> element of `html`. */
function insideStyleElement(html: string, line: number | undefined, column: number | undefined): boolean {
  if (line === undefined || column === undefined) return false;
  const lines = html.split("\n");
  const offset = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0) + column - 1;
  return html.lastIndexOf("<style", offset) > html.lastIndexOf("</style>", offset);
}

function allowed(finding: Finding, html: (page: string) => string): boolean {
  if (finding.type === "info/warning" && finding.message === SANDBOX_WARNING) return finding.page === "quote page /";
  if (finding.type === "error" && ANCHOR_POSITIONING_CSS.has(finding.message)) return insideStyleElement(html(finding.page), finding.line, finding.column);
  return false;
}

interface Page {
  name: string;
  status: number;
  html: string;
}

interface VnuMessage {
  type: "error" | "info" | "non-document-error";
  subType?: string;
  url?: string;
  message: string;
  extract?: string;
  lastLine?: number;
  lastColumn?: number;
}

/** Runs vnu once over all the pages; every message but plain information, with the page it is on. */
function checkHtml(dir: string, files: Map<string, string>): Finding[] {
  const java = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, "bin", "java") : "java";
  const version = spawnSync(java, ["-version"], { encoding: "utf8" });
  if (version.error || version.status !== 0) {
    throw new Error(
      `The Nu HTML checker (vnu-jar) needs Java 11 or later, and \`${java} -version\` did not run (${version.error?.message ?? version.stderr}). ` +
        "Install a Java runtime: `apt-get install -y default-jre-headless` (Debian/Ubuntu), or set JAVA_HOME to one.",
    );
  }
  const result = spawnSync(java, ["-jar", VNU_JAR, "--format", "json", "--stdout", "--exit-zero-always", ...files.keys()], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  if (result.status !== 0) throw new Error(`vnu failed (${String(result.status ?? result.signal)}): ${result.stderr}${result.stdout}`);
  const messages = (JSON.parse(result.stdout) as { messages: VnuMessage[] }).messages;
  // vnu names a file `file:/tmp/…`: match on the file's own name.
  const pageOf = (url: string | undefined) => (url ? files.get(path.basename(fileURLToPath(url))) : undefined);
  return messages
    .filter((message) => message.type !== "info" || message.subType === "warning")
    .map((message) => ({
      page: pageOf(message.url) ?? message.url ?? "(no page)",
      type: message.subType ? `${message.type}/${message.subType}` : message.type,
      message: message.message,
      ...(message.lastLine !== undefined ? { line: message.lastLine } : {}),
      ...(message.lastColumn !== undefined ? { column: message.lastColumn } : {}),
      ...(message.extract !== undefined ? { extract: message.extract } : {}),
    }));
}

let t: TestApp;
let db: Database;
let admin: ReturnType<typeof createAdminApp>;
const pages: Page[] = [];
let dir: string;

async function site(name: string, url: string, headers: Record<string, string> = {}): Promise<Page> {
  const response = await request(t.app).get(url).set(headers);
  return { name, status: response.status, html: response.text };
}

/** The console, asked as a browser with this cookie jar asks it. */
async function consoleGet(agent: Agent, url: string) {
  const response = await request(admin).get(url).set("Cookie", cookieHeader(agent));
  remember(agent, response);
  return response;
}
async function consolePost(agent: Agent, url: string, form: Record<string, string>) {
  const response = await request(admin).post(url).set("Cookie", cookieHeader(agent)).type("form").send(form);
  remember(agent, response);
  return response;
}
async function signedIn(user: { name: string; password: string }): Promise<Agent> {
  const agent = jar();
  const page = await consoleGet(agent, "/sign-in");
  const response = await consolePost(agent, "/sign-in", { name: user.name, password: user.password, _csrf: csrfOf(page.text) });
  expect(response.status).toBe(303);
  return agent;
}

/** A stored lead sold to one example buyer and failed at the other, and its funnel, so the console's pages have rows and charts. */
async function seed(): Promise<string> {
  await registerDisclosure(db.builder, disclosureFor(undefined));
  await addUsers(db, [
    { ...OPS, role: "ops" },
    { ...ANALYST, role: "analyst" },
  ]);
  const leads = await t.services.leadRepository();
  const result = await leadStore(leads).create(sampleNewLead({ sid: "fb01", tid: "click-1" }), (lead) => ({
    deliveries: BUYERS.buyers.map((buyer) => ({ kind: "buyer" as const, target: buyer.id, idempotencyKey: `${lead.reference}:${buyer.id}`, sale: true, price: 18.5, url: null, capDay: null })),
  }));
  if (!result.created) throw new Error("expected a new lead");
  const deliveries = deliveryRepository(db);
  for (const delivery of await deliveries.claimDue(100, 60_000, new Date(Date.now() + 1_000))) {
    const answer: Omit<Completion, "attemptedAt" | "latencyMs" | "excerpt"> =
      delivery.target === "summit" ? { outcome: "accepted", httpStatus: 200, status: "accepted", price: 18.5 } : { outcome: "retry", httpStatus: 503, status: "failed", error: "HTTP 503" };
    await deliveries.complete(delivery, { latencyMs: 40, excerpt: "answer", attemptedAt: new Date(), ...answer });
  }
  const at = (hour: number, minute = 0) => new Date(Date.UTC(2026, 10, 3, hour, minute));
  await insertEvents(
    db,
    [
      { name: "campaign_hit", at: at(14, 0), sid: "fb01", tid: "click-1", visitId: "v1" },
      { name: "zip_submitted", at: at(14, 1), sid: "fb01", tid: "click-1", visitId: "v1", detail: "accepted" },
      { name: "quote_page_view", at: at(14, 2), sid: "fb01", tid: "click-1", visitId: "v1" },
      { name: "form_started", at: at(14, 3), sid: "fb01", tid: "click-1", visitId: "v1" },
      { name: "lead_submitted", at: at(14, 10), sid: "fb01", tid: "click-1", visitId: "v1", leadReference: result.reference },
      { name: "buyer_pinged", at: at(14, 11), sid: "fb01", tid: "click-1", visitId: "v1", leadReference: result.reference, target: "summit", detail: "bid", bid: 18.5 },
      { name: "lead_sold", at: at(14, 12), sid: "fb01", tid: "click-1", visitId: "v1", leadReference: result.reference, target: "summit", revenue: 18.5, payout: 6 },
    ],
    ZONE,
  );
  return result.reference;
}

beforeAll(async () => {
  t = await createTestApp({ PRIVACY_RATE_LIMIT: "1000" });
  db = await t.services.db();
  admin = createAdminApp({
    config: { ADMIN_SESSION_HOURS: 12, REPORT_TIME_ZONE: ZONE, NODE_ENV: "production" },
    logger: captureLogs({ LOG_LEVEL: "warn", NODE_ENV: "production" }).logger,
    db,
    renderAdmin: renderAdminFrom((await loadProductionBuild(path.join(projectRoot, "dist"))).source),
    secret: "html-validity-secret-html-validity-secret",
    reports: analyticsReports,
    settings: fixedSettings(BUYERS),
    nudge: () => {},
    now: () => new Date(),
  });
  const reference = await seed();

  // The site's pages, including every face of the privacy request page.
  pages.push(
    await site("landing /zipcode", "/zipcode?sid=fb01&tid=click-1"),
    await site("quote page /", "/?zip=90210&sid=fb01&tid=click-1"),
    await site("quote form /rapidfire.html", "/rapidfire.html"),
    await site("privacy policy", "/privacy-policy"),
    await site("terms of use", "/terms-of-use"),
    await site("privacy request /do-not-sell", "/do-not-sell"),
    await site("privacy request, stop calls and texts", "/do-not-sell?request=revoke_consent"),
    await site("privacy request with Global Privacy Control", "/do-not-sell", { "Sec-GPC": "1" }),
    await site("privacy request received", "/do-not-sell?received=PR-AAAA-AAAA"),
    await site("privacy request received, stop calls and texts", "/do-not-sell?request=revoke_consent&received=PR-AAAA-AAAA"),
    await site("not found", "/no-such-page"),
    // The server's fixed 404 (server/pages/error-page.ts): the same page without React.
    await site("not found, a missing file", "/assets/no-such-file.js"),
  );
  // The form refused (422: the error summary, fields marked invalid), then sent twice (409: "we already have this request").
  const form = await request(t.app).get("/do-not-sell");
  const cookie = ((form.headers["set-cookie"] as unknown as string[] | undefined) ?? []).map((line) => line.split(";")[0]).join("; ");
  const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(form.text)?.[1] ?? "";
  const post = (fields: Record<string, string>) => request(t.app).post("/do-not-sell").set("Cookie", cookie).type("form").send({ _csrf: hidden("_csrf"), submissionId: hidden("submissionId"), ...fields }).redirects(0);
  const refused = await post({ email: "not-an-email", phone: "555-0134", state: "ZZ" });
  pages.push({ name: "privacy request refused", status: refused.status, html: refused.text });
  const fields = { requestType: "access", email: "someone@example.com" };
  await post(fields);
  const duplicate = await post(fields);
  pages.push({ name: "privacy request already received", status: duplicate.status, html: duplicate.text });

  // The console: signed out, then each role's pages (the analyst's refusals included).
  const visitor = jar();
  const signedOut = await consoleGet(visitor, "/sign-in?next=%2Fbuyers");
  pages.push({ name: "console sign-in", status: signedOut.status, html: signedOut.text });
  const refusedSignIn = await consolePost(visitor, "/sign-in", { name: "nobody", password: "not the password at all", _csrf: csrfOf(signedOut.text) });
  pages.push({ name: "console sign-in refused", status: refusedSignIn.status, html: refusedSignIn.text });
  const consolePages = [
    "/?since=2026-11-01&until=2026-11-08&by=sid",
    "/?since=2026-11-01&until=2026-11-08&by=date",
    "/journey?tid=click-1",
    "/leads",
    `/leads?reference=${reference}`,
    "/buyers",
    "/buyers/new",
    "/buyers/summit",
    "/buyers/summit/edit",
    "/sources",
    "/sources/new",
    "/sources/fb01",
    "/sources/fb01/edit",
    "/privacy-requests",
    "/no-such-console-page",
  ];
  for (const [role, user] of [
    ["ops", OPS],
    ["analyst", ANALYST],
  ] as const) {
    const agent = await signedIn(user);
    for (const url of consolePages) {
      const response = await consoleGet(agent, url);
      pages.push({ name: `console (${role}) ${url}`, status: response.status, html: response.text });
    }
    if (role === "ops") {
      const buyers = await consoleGet(agent, "/buyers/summit");
      const archive = await consolePost(agent, "/buyers/summit/status", { status: "archived", _csrf: csrfOf(buyers.text) });
      pages.push({ name: "console (ops) archive confirmation", status: archive.status, html: archive.text });
    }
  }

  dir = await mkdtemp(path.join(os.tmpdir(), "html-validity-"));
}, 120_000);

afterAll(async () => {
  await t?.services.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the Nu HTML checker", () => {
  it("rendered every page it checks (none of them a server error or a redirect)", () => {
    const wrong = pages.filter((page) => page.status >= 500 || (page.status >= 300 && page.status < 400) || !/^<!doctype html>/i.test(page.html));
    expect(wrong.map((page) => `${page.name}: ${page.status} ${page.html.slice(0, 80)}`)).toEqual([]);
  });

  it("finds no error and no warning on any page, but the quote frame's sandbox warning the spec requires and the anchor positioning CSS it does not know", async () => {
    const files = new Map<string, string>();
    for (const [index, page] of pages.entries()) {
      const file = `${String(index).padStart(2, "0")}.html`;
      await writeFile(path.join(dir, file), page.html);
      files.set(file, page.name);
    }
    const findings = checkHtml(dir, files);
    const html = (name: string) => pages.find((page) => page.name === name)?.html ?? "";
    expect(findings.filter((finding) => !allowed(finding, html))).toEqual([]);
    // The sandbox warning is still there (the spec's permissions are kept), once.
    expect(findings.filter((finding) => finding.message === SANDBOX_WARNING).map((finding) => finding.page)).toEqual(["quote page /"]);
  }, 180_000);
});
