/**
 * The privacy policy says what the site does (issue 14): each statement a test can check is pinned
 * here to the code that makes it true. The cookies the server sets are the ones the cookie table
 * lists, with its lifetimes; every question of the quote form is in the categories table, none of
 * them sensitive; every retention period has the job that applies it; the legal links are on `/`
 * and in the form; the notice at collection is one click from the form.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import request from "supertest";
import { parse, type HTMLElement } from "node-html-parser";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../support/app";
import { cellText, cookieOf, policyTable, SESSION_LIFETIME } from "../support/privacy-policy";
import { LEGAL_LINKS, paths } from "../../shared/routes";
import { formatLegalDate, site } from "../../shared/site";
import { DRIVER_FIELDS, LEAD_FIELDS, LICENSE_STATUS, VEHICLE_FIELDS, fieldInfo, type DriverField, type LeadField, type VehicleField } from "../../shared/lead/fields";
import { SAVED_KEY, SAVED_MAX_AGE_MS } from "../../client/quote-form/saved-answers";
import { CSRF_COOKIE } from "../../server/csrf";
import { FLASH_COOKIE, SESSION_COOKIE } from "../../server/admin/cookies";
import { EXPERIMENT_COOKIE, EXPERIMENT_COOKIE_DAYS } from "../../shared/experiments";
import { experimentSchema } from "../../server/experiments/schema";
import { loadConfig } from "../../server/config";
import { run as leadsCommand } from "../../server/cli/leads";
import { CONSENT_RETENTION_YEARS, DELIVERY_RETENTION_YEARS, LEAD_RETENTION_YEARS, PRIVACY_REQUEST_RETENTION_MONTHS } from "../../server/leads/retention";
import { projectRoot } from "../../tools/production-server";

let t: TestApp;
let policy: HTMLElement;
let body: string;

beforeAll(async () => {
  t = await createTestApp();
  const response = await request(t.app).get(paths.privacy);
  expect(response.status).toBe(200);
  policy = parse(response.text);
  body = cellText(policy.querySelector(".legal-body"));
});

const setCookies = (response: request.Response): string[] => (response.headers["set-cookie"] as unknown as string[] | undefined) ?? [];

describe("cookies and browser storage", () => {
  const cookieTable = () => policyTable(policy, "Cookies and similar technologies the Site uses");

  it("lists exactly the cookies the server and the console set, each with its type", () => {
    const rows = cookieTable();
    const cookies = [...rows].filter(([, row]) => /cookie/i.test(row.Type!)).map(([name]) => name);
    expect(cookies.sort()).toEqual([CSRF_COOKIE, SESSION_COOKIE, FLASH_COOKIE, EXPERIMENT_COOKIE].sort());
    expect(rows.get(CSRF_COOKIE)?.Type).toBe("Strictly necessary cookie");
    expect(rows.get(SESSION_COOKIE)?.Type).toBe("Strictly necessary cookie, staff only");
    expect(rows.get(FLASH_COOKIE)?.Type).toBe("Strictly necessary cookie, staff only");
    // The one cookie that is not strictly necessary says so (issue 45).
    expect(rows.get(EXPERIMENT_COOKIE)?.Type).toBe("Testing cookie (first-party)");
    for (const [name, row] of rows) expect(row.Type, name).toMatch(name === EXPERIMENT_COOKIE ? /^Testing cookie/ : /^Strictly necessary|^Session storage$/);
  });

  it("the testing cookie is set as the table says: first-party, HttpOnly, SameSite=Lax, 90 days, only while a test runs on the page, never with GPC", async () => {
    const running = experimentSchema.parse({
      id: "policy-check",
      name: "Policy check",
      hypothesis: "The cookie the policy names is the one the server sets",
      status: "running",
      variants: [
        { id: "control", name: "Control", share: 50 },
        { id: "new", name: "New", share: 50, values: { "landing.headline": "Car Insurance Quotes in Two Minutes" } },
      ],
      startAt: "2020-01-01T00:00:00Z",
    });
    const testing = await createTestApp({}, { experiments: () => [running] });
    const lines = setCookies(await request(testing.app).get(paths.landing).set("User-Agent", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)"));
    expect(lines.map((line) => cookieOf(line).name)).toEqual([EXPERIMENT_COOKIE]);
    const cookie = cookieOf(lines[0]!);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "lax" });
    expect(cookie.maxAge).toBe(EXPERIMENT_COOKIE_DAYS * 24 * 60 * 60);
    expect(setCookies(await request(testing.app).get(paths.landing).set("Sec-GPC", "1"))).toEqual([]);
    const row = cookieTable().get(EXPERIMENT_COOKIE)!;
    expect(row["How long it lasts"]).toBe(`${EXPERIMENT_COOKIE_DAYS} days`);
    expect(row["What it does"]).toContain("HttpOnly, SameSite=Lax");
    expect(row["What it does"]).toContain("same version of a page on each visit");
    expect(row["What it does"]).toContain("which version led to a quote request");
    expect(row["When it is set"]).toContain("never when your browser sends Global Privacy Control");
    expect(body).toContain("If your browser sends the Global Privacy Control signal, we do not set it");
  });

  it("the quote form's session and the privacy request form set the security cookie, as the table says: HttpOnly, SameSite=Strict, gone when the browser closes", async () => {
    for (const url of [paths.leadsSession, paths.doNotSell, paths.privacySession]) {
      const lines = setCookies(await request(t.app).get(url));
      expect(lines.map((line) => cookieOf(line).name), url).toEqual([CSRF_COOKIE]);
      const cookie = cookieOf(lines[0]!);
      expect(cookie, url).toMatchObject({ httpOnly: true, sameSite: "strict", expires: false });
      expect(cookie.maxAge, url).toBeUndefined();
    }
    const row = cookieTable().get(CSRF_COOKIE)!;
    expect(row["How long it lasts"]).toBe(SESSION_LIFETIME);
    expect(row["What it does"]).toContain("HttpOnly, SameSite=Strict");
    expect(row["When it is set"]).toContain("every visitor of the quote page");
  });

  it("the pages themselves set no cookie without a test running: only opening a form does", async () => {
    for (const url of [paths.landing, paths.quote, paths.privacy, paths.terms, paths.quoteForm, "/no-such-page"]) {
      expect(setCookies(await request(t.app).get(url)), url).toEqual([]);
    }
  });

  it("states the console's cookie lifetimes from its code: a browser-session cookie ended after ADMIN_SESSION_HOURS idle, a 60-second message", () => {
    const rows = cookieTable();
    expect(rows.get(SESSION_COOKIE)?.["How long it lasts"]).toBe(`Until the browser closes; the sign-in itself ends after ${loadConfig({}).ADMIN_SESSION_HOURS} hours without use, or at sign-out`);
    expect(rows.get(FLASH_COOKIE)?.["How long it lasts"]).toBe("60 seconds, deleted as soon as it is shown");
  });

  it("names the quote form's saved answers by their storage key, with their 30 minutes", () => {
    const row = cookieTable().get(SAVED_KEY);
    expect(row?.Type).toBe("Session storage");
    expect(row?.["How long it lasts"]).toBe(`${SAVED_MAX_AGE_MS / 60_000} minutes, deleted when you close the tab or your request is sent`);
    expect(row?.["What it does"]).toContain("never your consent");
  });

  it("explains why no consent banner is shown, and promises none of the banners, settings or trackers the site does not have", () => {
    expect(body).toContain("Every other cookie and stored item below is strictly necessary");
    expect(body).toContain("The testing cookie is not strictly necessary: you can refuse it by turning on Global Privacy Control");
    expect(body).not.toMatch(/cookie settings|hashed email|share hashed|other insurance shopping websites|session-recording tools from/i);
  });
});

/** Where each question of the quote form is listed: its category's row, and the words the row uses for it. */
type Listing = { category: string; words: string };
const LEAD_LISTING: Record<LeadField, Listing> = {
  zip: { category: "Identifiers", words: "ZIP code" },
  streetAddress: { category: "Identifiers", words: "street address" },
  email: { category: "Identifiers", words: "email address" },
  phone: { category: "Identifiers", words: "phone number" },
  currentlyInsured: { category: "Personal records (Cal. Civ. Code §1798.80(e))", words: "whether you are insured now" },
  currentInsurer: { category: "Personal records (Cal. Civ. Code §1798.80(e))", words: "your current insurer" },
  insuredFor: { category: "Personal records (Cal. Civ. Code §1798.80(e))", words: "how long you have been insured" },
  coverage: { category: "Personal records (Cal. Civ. Code §1798.80(e))", words: "the coverage you want" },
  residence: { category: "Commercial information", words: "whether you own or rent your home" },
  consent: { category: "Commercial information", words: "your agreement to be contacted" },
};
const VEHICLE_LISTING: Record<VehicleField, Listing> = {
  year: { category: "Commercial information", words: "year" },
  make: { category: "Commercial information", words: "make" },
  model: { category: "Commercial information", words: "model" },
  vin: { category: "Commercial information", words: "VIN (if you give it)" },
  ownership: { category: "Commercial information", words: "whether you own, finance or lease it" },
  primaryUse: { category: "Commercial information", words: "its primary use" },
  annualMileage: { category: "Commercial information", words: "annual mileage" },
};
const DRIVER_LISTING: Record<DriverField, Listing> = {
  firstName: { category: "Identifiers", words: "First and last name of each driver" },
  lastName: { category: "Identifiers", words: "First and last name of each driver" },
  dateOfBirth: { category: "Protected classification characteristics", words: "Date of birth (age)" },
  maritalStatus: { category: "Protected classification characteristics", words: "marital status" },
  relationship: { category: "Commercial information", words: "relationship to you" },
  licenseStatus: { category: "Commercial information", words: "license status" },
  ageFirstLicensed: { category: "Commercial information", words: "age when first licensed" },
  accidents: { category: "Commercial information", words: "accidents" },
  tickets: { category: "Commercial information", words: "tickets" },
  claims: { category: "Commercial information", words: "claims in the last 3 years" },
  dui: { category: "Commercial information", words: "DUI" },
  sr22: { category: "Commercial information", words: "SR-22 filing" },
};

describe("the categories of personal information", () => {
  const categories = () => policyTable(policy, "Categories of personal information we collected in the past 12 months");
  const listings: [string, Listing][] = [
    ...LEAD_FIELDS.map((field) => [field, LEAD_LISTING[field]] as [string, Listing]),
    ...VEHICLE_FIELDS.map((field) => [`vehicles.${field}`, VEHICLE_LISTING[field]] as [string, Listing]),
    ...DRIVER_FIELDS.map((field) => [`drivers.${field}`, DRIVER_LISTING[field]] as [string, Listing]),
  ];

  it("lists every question of the quote form in its category's row, collected and sold to the Partners named beside the consent box", () => {
    const rows = categories();
    expect(listings).toHaveLength(LEAD_FIELDS.length + VEHICLE_FIELDS.length + DRIVER_FIELDS.length);
    for (const [field, { category, words }] of listings) {
      const row = rows.get(category);
      expect(row, `${field}: no row "${category}"`).toBeDefined();
      expect((row!.Examples ?? "").toLowerCase(), field).toContain(words.toLowerCase());
      expect(row!.Collected, field).toBe("Yes");
      expect(row!["Sold or shared"], field).toMatch(/^(Sold|ZIP code, city and state sold) to the Partners named beside the consent box/);
    }
  });

  it("lists the same questions in the policy's own list of what the form asks, and the notice at collection links to both", () => {
    const section = policy.getElementById("quote-form-information")!;
    const list = cellText(section.nextElementSibling?.nextElementSibling ?? null).toLowerCase();
    for (const [field, { words }] of listings) expect(list, field).toContain(words.toLowerCase().replace(/ \(.*\)$/, ""));
    const notice = cellText(policy.getElementById("notice-at-collection")?.nextElementSibling?.nextElementSibling ?? null);
    expect(notice).toContain("Sensitive personal information. We collect none.");
    const links = policy.querySelectorAll(".legal-body a").map((link) => link.getAttribute("href"));
    expect(links).toEqual(expect.arrayContaining(["#quote-form-information", "#categories-collected", "#retention", paths.doNotSell]));
  });

  it("collects no sensitive personal information: no question asks for one, the row says No, and the license choices name documents, not origins", () => {
    expect(categories().get("Sensitive personal information")).toEqual({
      Category: "Sensitive personal information",
      Examples: expect.stringContaining("citizenship or immigration status") as unknown as string,
      Collected: "No",
      "Disclosed for a business purpose": "No",
      "Sold or shared": "No",
    });
    for (const [field] of listings) {
      expect(field, "a field named like a sensitive identifier").not.toMatch(/ssn|social|passport|licen[cs]eNumber|citizen|immigra|ethnic|religio|health/i);
    }
    for (const label of Object.values(LICENSE_STATUS)) expect(label).not.toMatch(/countr|foreign|citizen|immigra|nationality/i);
    expect(fieldInfo("licenseStatus", "driver").why).not.toMatch(/foreign|countr/i);
    expect(body).toContain("We do not collect sensitive personal information as the CCPA defines it");
    expect(body).not.toMatch(/driver's license number[^.]*(if you choose|if provided|90 days)/i);
  });

  it("names the recipients as delivery sends: the Partners named beside the consent box, and no reseller", () => {
    expect(body).toContain("The Partners that receive your request are the ones named beside the consent box on the quote form");
    expect(body).toContain("We do not sell or give personal information to data brokers, marketing companies or other resellers");
    expect(body).not.toMatch(/other insurance shopping websites|marketing partners|lead resellers may/i);
  });
});

describe("retention: every period the policy states has the job that applies it", () => {
  const periods = () => new Map([...policyTable(policy, "How long we keep personal information")].map(([information, row]) => [information, row["Retention period"]!]));

  it("states each period exactly as the code applies it, and nothing else", async () => {
    let usage = "";
    await leadsCommand(["--help"], (text) => (usage += text));
    const compose = await readFile(path.join(projectRoot, "docker-compose.yml"), "utf8");
    const deployment = await readFile(path.join(projectRoot, "docs", "deployment.md"), "utf8");
    const analyticsDays = loadConfig({}).ANALYTICS_RETENTION_DAYS;
    // Each row: its period, and the proof that something applies it.
    const expected: Record<string, [period: string, applied: () => void]> = {
      "Quote request and lead data": [`${LEAD_RETENTION_YEARS} years from collection`, () => expect(usage).toContain(`delete leads older than ${LEAD_RETENTION_YEARS} years`)],
      "Consent records": [`${CONSENT_RETENTION_YEARS} years from the date of consent`, () => expect(usage).toContain(`consent records and\n          finished deliveries older than ${CONSENT_RETENTION_YEARS} years`)],
      "Records of which Partners received each quote request": [`${DELIVERY_RETENTION_YEARS} years from the request`, () => expect(DELIVERY_RETENTION_YEARS).toBe(CONSENT_RETENTION_YEARS)],
      "Opt-out list": ["At least 5 years from your request, and as long as needed to honor your choice", () => undefined],
      "Privacy request records": [`${PRIVACY_REQUEST_RETENTION_MONTHS} months from the request, as CCPA regulations require (an opt-out stays on our opt-out list after its request record is deleted)`, () => expect(usage).toContain(`closed privacy requests older than\n          ${PRIVACY_REQUEST_RETENTION_MONTHS} months`)],
      "Records of the steps of a visit": [`${Math.round((analyticsDays * 12) / 365)} months`, () => expect(usage).toContain("analytics events older than ANALYTICS_RETENTION_DAYS")],
      "Server logs": ["30 days", () => {
        expect(compose).toMatch(/x-logging: &logging[\s\S]*max-size: 20m[\s\S]*max-file: "5"/);
        expect(compose.match(/logging: \*logging/g)).toHaveLength(4); // the app, the balancer, PostgreSQL and Prometheus
        expect(deployment).toContain("### Log retention (30 days)");
        expect(deployment).toContain("MaxRetentionSec=30day");
      }],
      "Security cookie (qr_csrf)": [SESSION_LIFETIME, () => undefined],
      "Testing cookie (qr_vis)": [`${EXPERIMENT_COOKIE_DAYS} days`, () => undefined],
      "Quote form answers kept in your browser tab": [`${SAVED_MAX_AGE_MS / 60_000} minutes, and deleted when you close the tab or your request is sent`, () => undefined],
    };
    const rows = periods();
    expect([...rows.keys()].map((information) => Object.keys(expected).find((start) => information.startsWith(start)) ?? information)).toEqual(Object.keys(expected));
    for (const [information, period] of rows) {
      const [expectedPeriod, applied] = expected[Object.keys(expected).find((start) => information.startsWith(start))!]!;
      expect(period, information).toBe(expectedPeriod);
      applied();
    }
  });

  it("keeps the suppression list: no code deletes from it", async () => {
    const { readdir } = await import("node:fs/promises");
    const files = (await readdir(path.join(projectRoot, "server"), { recursive: true })).filter((file) => file.endsWith(".ts"));
    for (const file of files) {
      const source = await readFile(path.join(projectRoot, "server", file), "utf8");
      expect(source, file).not.toMatch(/deleteFrom\("suppressions"\)|DELETE FROM suppressions/i);
    }
  });

  it("states no driver's license number period, call recordings or advertising cookie data: none is kept", () => {
    const rows = [...periods().keys()].join(" | ");
    expect(rows).not.toMatch(/license number|call recordings|advertising cookie|analytics and advertising/i);
  });
});

describe("the review date and the other states' rights", () => {
  it('shows "Last reviewed" from shared/site.ts beside "Last revised", which stays May 24, 2023', () => {
    expect(cellText(policy.querySelector(".legal-page-revised"))).toBe("Last revised: May 24, 2023");
    const reviewed = policy.querySelector(".legal-page-reviewed");
    expect(cellText(reviewed)).toBe(`Last reviewed: ${formatLegalDate(site.legalReviewed)}`);
    expect(reviewed?.querySelector("time")?.getAttribute("datetime")).toBe(site.legalReviewed);
    expect(body).toContain(`The "Last reviewed" date at the top of this page shows our latest review: ${formatLegalDate(site.legalReviewed)}.`);
  });

  it("gives residents of the other privacy-law states their rights, an appeal with a deadline, GPC and the recipients list", () => {
    const section = cellText(policy.getElementById("other-state-rights")?.parentNode ?? null);
    for (const state of ["Colorado", "Connecticut", "Virginia", "Utah", "Texas", "Oregon", "Montana", "Delaware", "New Jersey", "New Hampshire", "Nebraska", "Maryland", "Minnesota", "Iowa", "Tennessee", "Indiana", "Kentucky", "Rhode Island"]) {
      expect(section, state).toContain(state);
    }
    expect(body).toContain("Opt out of targeted advertising:");
    expect(body).toContain("Opt out of profiling:");
    expect(body).toContain("residents of Oregon and Minnesota, and of any other state that grants it, may ask for the list of the specific third parties");
    expect(body).toContain("within 45 days of receiving your appeal");
    expect(body).toContain("how to contact your state's Attorney General");
    expect(body).toMatch(/We honor the Global Privacy Control \(GPC\) signal, a universal opt-out mechanism/);
    expect(body).toContain('choose "Appeal our decision on an earlier request"');
  });
});

describe("the legal links and the notice at collection", () => {
  it("`/` leaves the legal links to its frame, so they appear once; the landing page carries them in its footer", async () => {
    const doc = parse((await request(t.app).get(paths.quote)).text);
    // The framed form ends with them (next test); a second copy under the frame stayed over the form on a phone (issue 32).
    expect(doc.querySelector('nav[aria-label="Legal"]')).toBeNull();
    expect(doc.querySelector("footer")).toBeNull();
    expect(doc.querySelector("iframe")?.getAttribute("src")).toMatch(/^\/rapidfire\.html\?/);
    const landing = parse((await request(t.app).get(paths.landing)).text);
    expect(landing.querySelector('footer.site-footer nav[aria-label="Legal"]')?.querySelectorAll("a").map((link) => link.getAttribute("href"))).toEqual(LEGAL_LINKS.map((link) => link.href));
  });

  it("the quote form (rapidfire.html) carries them too, opening in a new tab so the answers stay", async () => {
    const response = await request(t.app).get(paths.quoteForm);
    expect(response.status).toBe(200);
    const doc = parse(response.text);
    const links = doc.querySelectorAll('body > footer nav[aria-label="Legal"] a');
    expect(links.map((link) => [link.getAttribute("href"), cellText(link)])).toEqual(LEGAL_LINKS.map((link) => [link.href, link.text]));
    for (const link of links) expect([link.getAttribute("target"), link.getAttribute("rel")]).toEqual(["_blank", "noopener"]);
  });

  it("the form links straight to the notice at collection, the Do Not Sell link beside it, before the first question", async () => {
    const doc = parse((await request(t.app).get(paths.quoteForm)).text);
    const notice = doc.querySelector(".rf-collection-notice");
    expect(notice?.querySelectorAll("a").map((link) => [link.getAttribute("href"), cellText(link)])).toEqual([
      [paths.noticeAtCollection, "Notice at collection"],
      [paths.doNotSell, "Do Not Sell or Share My Personal Information"],
    ]);
    const html = doc.querySelector("#rf-app")!.innerHTML;
    expect(html.indexOf("rf-collection-notice")).toBeLessThan(html.indexOf("<input"));
    expect(paths.noticeAtCollection).toBe(`${paths.privacy}#notice-at-collection`);
    expect(policy.getElementById("notice-at-collection")?.tagName).toBe("H3");
  });

  it("/do-not-sell says opt-outs stop the selling within 15 business days", async () => {
    const doc = parse((await request(t.app).get(`${paths.doNotSell}?received=PR-7K3M-Q9XD`)).text);
    const received = cellText(doc.querySelector('[data-testid="privacy-received"]'));
    expect(received).toContain("We stop selling and sharing your personal information within 15 business days of an opt-out");
    expect(received).not.toMatch(/confirm opt-outs/);
  });
});
