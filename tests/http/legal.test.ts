/**
 * The legal pages as the built server sends them: sections, anchors, contents, tables, the
 * values from shared/site.ts, and that the landing page downloads none of the legal text.
 */
import { beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { parse, type HTMLElement } from "node-html-parser";
import { createTestApp, type TestApp } from "../support/app";
import { formatLegalDate, formatPostalAddress, site } from "../../shared/site";
import { paths } from "../../shared/routes";
import { scanHtml, scanModule } from "../../tools/js-weight";

let t: TestApp;
const pages = new Map<string, { html: string; doc: HTMLElement }>();

beforeAll(async () => {
  t = await createTestApp();
  for (const path of [paths.privacy, paths.terms]) {
    const response = await request(t.app).get(path);
    expect(response.status).toBe(200);
    pages.set(path, { html: response.text, doc: parse(response.text) });
  }
});

function page(path: string) {
  const found = pages.get(path);
  if (!found) throw new Error(`${path} was not loaded`);
  return found;
}

const text = (element: HTMLElement | null | undefined) => (element?.text ?? "").replace(/\s+/g, " ").trim();

describe.each([
  [paths.privacy, "Auto Insurance Quotes Privacy Policy"],
  [paths.terms, "Terms of Use"],
])("%s", (path, title) => {
  it("answers 200 with one h1, its title and the revision date", () => {
    const { doc } = page(path);
    expect(doc.querySelectorAll("h1").map(text)).toEqual([title]);
    expect(text(doc.querySelector(".legal-page-revised"))).toBe("Last revised: May 24, 2023");
    expect(doc.querySelector(".legal-page-revised time")?.getAttribute("datetime")).toBe(site.legalRevised);
    expect(formatLegalDate()).toBe("May 24, 2023");
    expect(doc.querySelector("title")?.text).toBe(`${title} | ${site.productName}`);
  });

  it("keeps the site header (logo to /zipcode) and footer", () => {
    const { doc } = page(path);
    expect(doc.querySelector("header.site-header a")?.getAttribute("href")).toBe(paths.landing);
    expect(doc.querySelector("footer")?.text).toContain(site.productName);
  });

  it("gives every heading a unique id, in an outline that skips no level", () => {
    const { doc } = page(path);
    const headings = doc.querySelectorAll("main h1, main h2, main h3, main h4, main h5, main h6");
    const ids = headings.slice(1).map((heading) => heading.id);
    expect(ids.every((id) => /^[a-z][a-z0-9-]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    let previous = 1;
    for (const heading of headings) {
      const level = Number(heading.tagName.slice(1));
      expect(level, `${heading.tagName} "${text(heading)}" after an h${previous}`).toBeLessThanOrEqual(previous + 1);
      previous = level;
    }
  });

  it("numbers its sections 1, 2, 3, … in order", () => {
    const numbers = page(path).doc.querySelectorAll(".legal-body h2").map((heading) => /^(\d+)\. /.exec(text(heading))?.[1]);
    expect(numbers).toEqual(numbers.map((_, index) => String(index + 1)));
  });

  it('has an "On this page" navigation linking to every section, in order', () => {
    const { doc } = page(path);
    const nav = doc.querySelector('nav[aria-label="On this page"]');
    expect(nav).not.toBeNull();
    const links = nav!.querySelectorAll("a");
    expect(links.map((link) => link.getAttribute("href"))).toEqual(doc.querySelectorAll(".legal-body h2").map((heading) => `#${heading.id}`));
    for (const link of links) {
      const target = doc.getElementById(link.getAttribute("href")!.slice(1));
      expect(target, link.getAttribute("href")).not.toBeNull();
      expect(text(link)).toBe(text(target));
    }
  });

  it("fills every placeholder with the values from shared/site.ts", () => {
    const { doc } = page(path);
    const mainHtml = doc.querySelector("main")?.innerHTML ?? "";
    expect(mainHtml).not.toContain("{{");
    expect(mainHtml).not.toContain("}}");
    const main = text(doc.querySelector("main"));
    expect(main).toContain(site.productName);
    expect(main).toContain(site.legalEntity);
    expect(main).toContain(formatPostalAddress());
    expect(main).toContain(site.phone);
    const mailto = doc.querySelectorAll(".legal-body a").filter((link) => link.getAttribute("href")?.startsWith("mailto:"));
    expect(mailto.length).toBeGreaterThan(0);
    expect(new Set(mailto.map((link) => link.getAttribute("href")))).toEqual(new Set([`mailto:${site.contactEmail}`]));
    expect(new Set(mailto.map(text))).toEqual(new Set([site.contactEmail]));
  });

  it("makes every table accessible: a caption, column headers with scope, labelled cells", () => {
    for (const table of page(path).doc.querySelectorAll(".legal-body table")) {
      expect(text(table.querySelector("caption")).length).toBeGreaterThan(0);
      const headers = table.querySelectorAll("thead th");
      expect(headers.every((header) => header.getAttribute("scope") === "col")).toBe(true);
      for (const row of table.querySelectorAll("tbody tr")) {
        expect(row.querySelectorAll("th, td").map((cell) => cell.getAttribute("data-label"))).toEqual(headers.map(text));
      }
    }
  });

  it("links only to sections that exist, on this page or the other legal page", () => {
    for (const link of page(path).doc.querySelectorAll("main a")) {
      const href = link.getAttribute("href") ?? "";
      if (!href.includes("#")) continue;
      const [target, fragment] = href.split("#") as [string, string];
      const targetPage = target === "" ? page(path) : page(target);
      expect(targetPage.doc.getElementById(fragment), href).not.toBeNull();
    }
  });
});

describe("the privacy policy", () => {
  const sectionTitles = () => page(paths.privacy).doc.querySelectorAll(".legal-body h2").map(text);

  it("has the 18 sections of the spec, in order", () => {
    expect(sectionTitles()).toEqual([
      "1. Insurance Disclaimer",
      "2. Changes to This Policy",
      "3. Information We Collect",
      "4. How We Collect Information",
      "5. How We Use and Share Information",
      "6. Security",
      "7. Blogs and Forums",
      "8. Other Websites",
      "9. Legal Compliance",
      "10. Business Transfers",
      "11. Data Retention",
      "12. Children Under 18",
      "13. Opting Out",
      "14. Contacting Us",
      "15. European Visitors",
      "16. California Privacy Rights",
      "17. Nevada and Other State Privacy Rights",
      "18. Retention of Personal Information",
    ]);
  });

  it("has the anchors other pages link to", () => {
    const { doc } = page(paths.privacy);
    expect(doc.getElementById("california-rights")?.tagName).toBe("H2");
    expect(text(doc.getElementById("california-rights"))).toBe("16. California Privacy Rights");
    expect(doc.getElementById("state-privacy-rights")?.tagName).toBe("H2");
    expect(doc.getElementById("nevada-opt-out")?.tagName).toBe("H3");
    expect(text(doc.getElementById("nevada-opt-out"))).toBe("Nevada Residents: Opt-Out of Sale");
    expect(doc.getElementById("other-state-rights")?.tagName).toBe("H3");
    expect(doc.getElementById("appeals")?.tagName).toBe("H4");
    expect(doc.getElementById("notice-at-collection")?.tagName).toBe("H3");
    expect(doc.getElementById("retention")?.tagName).toBe("H2");
    expect(doc.getElementById("cookies")?.tagName).toBe("H3");
    expect(text(doc.getElementById("cookies"))).toBe("Cookies, Pixels and Similar Technologies");
  });

  it("shows the California categories table with what is collected, disclosed and sold or shared", () => {
    const table = page(paths.privacy)
      .doc.querySelectorAll(".legal-body table")
      .find((candidate) => /past 12 months/.test(text(candidate.querySelector("caption"))));
    expect(table, "a table captioned with the past 12 months").toBeDefined();
    // It belongs to section 16.
    const california = page(paths.privacy).html.indexOf('id="california-rights"');
    const nevada = page(paths.privacy).html.indexOf('id="state-privacy-rights"');
    const position = page(paths.privacy).html.indexOf("past 12 months, and whether we disclosed");
    expect(position).toBeGreaterThan(california);
    expect(position).toBeLessThan(nevada);

    expect(table!.querySelectorAll('thead th[scope="col"]').map(text)).toEqual([
      "Category",
      "Examples",
      "Collected",
      "Disclosed for a business purpose",
      "Sold or shared",
    ]);
    const rows = new Map(
      table!.querySelectorAll("tbody tr").map((row) => {
        const cells = row.querySelectorAll("th, td").map(text);
        return [cells[0]!, { collected: cells[2]!, disclosed: cells[3]!, soldOrShared: cells[4]! }] as const;
      }),
    );
    expect([...rows.keys()]).toEqual([
      "Identifiers",
      "Personal records (Cal. Civ. Code §1798.80(e))",
      "Protected classification characteristics",
      "Commercial information",
      "Internet or network activity",
      "Geolocation data",
      "Sensory data",
      "Professional or employment information",
      "Education information",
      "Inferences",
      "Sensitive personal information",
      "Biometric information",
    ]);
    expect(rows.get("Identifiers")).toMatchObject({ collected: "Yes", disclosed: "Yes, to service providers such as our hosting provider" });
    expect(rows.get("Identifiers")?.soldOrShared).toMatch(/^Sold to the Partners named beside the consent box .*The click number is shared with the website or ad network that sent you, unless you opted out$/);
    expect(rows.get("Commercial information")).toMatchObject({ collected: "Yes", soldOrShared: "Sold to the Partners named beside the consent box. Not shared" });
    expect(rows.get("Sensitive personal information")).toEqual({ collected: "No", disclosed: "No", soldOrShared: "No" });
    expect(rows.get("Biometric information")).toEqual({ collected: "No", disclosed: "No", soldOrShared: "No" });
    for (const [category, row] of rows) {
      expect(row.collected, category).toMatch(/^(Yes|No)\b/);
      expect(row.disclosed, category).toMatch(/^(Yes|No)\b/);
      expect(row.soldOrShared.length, category).toBeGreaterThan(1);
    }
  });

  it("covers the California rights, signals and notices the spec lists", () => {
    const { doc } = page(paths.privacy);
    const california = text(doc.querySelector(".legal-body"));
    for (const id of ["right-to-know", "right-to-deletion", "right-to-opt-out", "right-to-correct", "right-to-non-discrimination", "do-not-track", "site-ownership", "shine-the-light"]) {
      expect(doc.getElementById(id), id).not.toBeNull();
    }
    expect(california).toContain("we do not respond to Do Not Track signals");
    expect(california).toContain("we do honor the Global Privacy Control (GPC) signal");
    expect(california).toMatch(/We will respond within 30 days\. We are required to answer only one request per customer each calendar year\./);
    expect(california).toMatch(/The Site is owned and operated by QuoteRidge Media, LLC/);
    expect(doc.querySelectorAll(".legal-body a").some((link) => link.getAttribute("href") === paths.doNotSell)).toBe(true);
  });

  it("states the age limits and the retention periods the systems keep", () => {
    const body = text(page(paths.privacy).doc.querySelector(".legal-body"));
    expect(body).toContain("18 years of age or older");
    expect(body).toContain("People under 16 may not submit personal information");
    expect(body).toContain("from a child under 13 without verifiable parental consent, we will delete it");
    const retention = page(paths.privacy)
      .doc.querySelectorAll(".legal-body table")
      .find((candidate) => text(candidate.querySelector("caption")) === "How long we keep personal information");
    const periods = new Map(retention!.querySelectorAll("tbody tr").map((row) => [text(row.querySelector("th")), text(row.querySelectorAll("td")[0])]));
    expect(periods.get("Privacy request records, including requests made by email or phone")).toMatch(/^24 months from the request/);
    expect([...periods].find(([information]) => information.startsWith("Quote request and lead data"))?.[1]).toBe("3 years from collection");
  });

  it("promises nothing the site does not do: no cookie banner or settings, no accounts, no session recording", () => {
    const body = text(page(paths.privacy).doc.querySelector(".legal-body"));
    expect(body).not.toMatch(/cookie settings link|choice in our cookie banner|create an account|keep any password/i);
    expect(body).not.toMatch(/We (also )?use session-recording/);
    expect(body).toContain("The Site sets a strictly necessary security cookie, set when you open our quote form or our privacy request form");
    // The one cookie that is not strictly necessary (issue 45) is named as such, with how to refuse it.
    expect(body).toContain("The testing cookie is not strictly necessary");
    expect(body).toContain("so the Site shows no cookie banner");
    expect(body).toContain("we will ask for your consent first");
    expect(body).toContain(`For questions about cookies, email ${site.contactEmail}.`);
  });
});

describe("the terms of use", () => {
  const body = () => text(page(paths.terms).doc.querySelector(".legal-body"));

  it("caps liability at $5.00, limits claims to one year, and names AAA arbitration and California law", () => {
    expect(body()).toContain("five U.S. dollars ($5.00)");
    expect(body()).toContain("within one year after the claim arises");
    expect(body()).toContain("American Arbitration Association");
    expect(body()).toContain("the county in the United States where you live");
    expect(body()).toContain("governed by the laws of the State of California");
    expect(body()).toMatch(/class-action waiver/i);
  });

  it("covers the consent to autodialed calls and texts, with call recording", () => {
    expect(body()).toContain("automatic telephone dialing system");
    expect(body()).toContain("may be monitored and recorded");
  });
});

describe("code splitting: /zipcode carries none of the legal text", () => {
  // Sentences that appear only in the legal pages.
  const LEGAL_PHRASES = ["Shine the Light Request", "American Arbitration Association", "Cal. Civ. Code §1798.80", "legal-toc"];

  async function fetchAsset(path: string): Promise<string> {
    const response = await request(t.app).get(path).buffer(true).parse((res, callback) => {
      let data = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (data += chunk));
      res.on("end", () => callback(null, data));
    });
    expect(response.status, path).toBe(200);
    return response.body as string;
  }

  /** The landing page's scripts at load (entry, modulepreloads, their static imports) and the modules they import() later. */
  async function landingScripts(): Promise<{ html: string; atLoad: Map<string, string>; lazy: Map<string, string> }> {
    const html = (await request(t.app).get(paths.landing)).text;
    const refs = scanHtml(html);
    const atLoad = new Map<string, string>();
    const queue = [...refs.scripts, ...refs.modulePreloads].map((src) => new URL(src, "http://x/").pathname);
    const dynamic: string[] = [];
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (atLoad.has(path)) continue;
      const code = await fetchAsset(path);
      atLoad.set(path, code);
      const modules = scanModule(code);
      for (const specifier of modules.staticImports) queue.push(new URL(specifier, `http://x${path}`).pathname);
      for (const specifier of modules.dynamicImports) dynamic.push(new URL(specifier, `http://x${path}`).pathname);
    }
    const lazy = new Map<string, string>();
    for (const path of dynamic) if (!atLoad.has(path) && !lazy.has(path)) lazy.set(path, await fetchAsset(path));
    return { html, atLoad, lazy };
  }

  it("loads an entry script whose code and static imports contain no legal text", async () => {
    const { html, atLoad, lazy } = await landingScripts();
    expect(atLoad.size).toBeGreaterThan(0);
    for (const phrase of LEGAL_PHRASES) {
      expect(html, `/zipcode's HTML contains "${phrase}"`).not.toContain(phrase);
      for (const [path, code] of atLoad) expect(code.includes(phrase), `${path} (loaded at page load) contains "${phrase}"`).toBe(false);
    }
    // The check is not vacuous: the phrases are in chunks the page can import() later.
    const lazyCode = [...lazy.values()].join("\n");
    for (const phrase of LEGAL_PHRASES) expect(lazyCode, `no lazy chunk contains "${phrase}"`).toContain(phrase);
  });

  it("does not link the legal pages' stylesheet", async () => {
    const html = (await request(t.app).get(paths.landing)).text;
    expect(html).not.toContain("legal-pages");
    expect(html).not.toContain("legal-table");
  });
});
