/**
 * The legal pages' build-time compiler (build/legal-markdown.ts): ids, numbering, placeholders,
 * accessible tables, links, and the loud failures that keep a lawyer's typo out of production.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "node-html-parser";
import {
  LegalMarkdownError,
  compileLegalMarkdown,
  isoDateOf,
  legalMarkdown,
  legalModuleCode,
  markdownText,
  sitePlaceholders,
} from "../../build/legal-markdown";
import { telUri } from "../../shared/contact";
import { formatLegalDate, formatPostalAddress, site } from "../../shared/site";
import { projectRoot } from "../../tools/production-server";

const HEAD = "# A Policy\n\nLast revised: {{lastRevised}}\n\n";

function compile(body: string, options: { placeholders?: Record<string, string>; selfPath?: string } = {}) {
  return compileLegalMarkdown(`${HEAD}${body}`, { file: "test.md", ...options });
}

/** The problems a compile reports (and fails the test if it does not fail). */
function problemsOf(body: string, options: { placeholders?: Record<string, string>; selfPath?: string; raw?: boolean } = {}): string[] {
  try {
    if (options.raw) compileLegalMarkdown(body, { file: "test.md", ...options });
    else compile(body, options);
  } catch (error) {
    expect(error).toBeInstanceOf(LegalMarkdownError);
    return [...(error as LegalMarkdownError).problems];
  }
  throw new Error("expected the compile to fail");
}

describe("title, date and headings", () => {
  const doc = compile(
    "Intro.\n\n## 1. First Section {#first}\n\nText.\n\n### A Detail {#a-detail}\n\nMore.\n\n## 2. Second *Section* {#second}\n\nEnd.\n",
  );

  it("takes the title and the revision date out of the body", () => {
    expect(doc.title).toBe("A Policy");
    expect(doc.lastRevised).toBe(formatLegalDate());
    expect(doc.lastRevisedIso).toBe(site.legalRevised);
    expect(doc.html).not.toContain("<h1");
    expect(doc.html).not.toContain("Last revised");
    expect(doc.html.startsWith("<p>Intro.</p>")).toBe(true);
  });

  it("lists every heading in order with its level, number, text and id", () => {
    expect(doc.headings).toEqual([
      { level: 2, number: "1", text: "First Section", id: "first" },
      { level: 3, number: null, text: "A Detail", id: "a-detail" },
      { level: 2, number: "2", text: "Second Section", id: "second" },
    ]);
  });

  it("renders each heading with its {#id} as the element id and without the suffix", () => {
    const html = parse(doc.html);
    expect(html.querySelector("h2#first")?.text).toBe("1. First Section");
    expect(html.querySelector("h3#a-detail")?.text).toBe("A Detail");
    expect(html.querySelector("h2#second")?.innerHTML).toBe("2. Second <em>Section</em>");
    expect(doc.html).not.toContain("{#");
  });

  it("fails on a heading without an id, naming it", () => {
    expect(problemsOf("## 1. No Id\n")).toEqual([expect.stringMatching(/heading "## 1\. No Id" has no id/)]);
  });

  it("fails on a duplicate id", () => {
    expect(problemsOf("## 1. One {#same}\n\n## 2. Two {#same}\n")).toEqual([expect.stringMatching(/"same" is used twice/)]);
  });

  it("fails on an id that is not lower-case words joined by hyphens", () => {
    expect(problemsOf("## 1. One {#Bad_Id}\n")).toEqual([expect.stringMatching(/"Bad_Id" must be lower-case/)]);
  });

  it("fails when sections are not numbered 1, 2, 3, … in order", () => {
    expect(problemsOf("## 1. One {#one}\n\n## 3. Three {#three}\n")).toEqual([expect.stringMatching(/"3\. Three" \{#three\} should be numbered 2/)]);
    expect(problemsOf("## 1. One {#one}\n\n## Two {#two}\n")).toEqual([expect.stringMatching(/should be numbered 2/)]);
  });

  it("fails on a skipped heading level and on a second h1", () => {
    expect(problemsOf("## 1. One {#one}\n\n#### Deep {#deep}\n")).toEqual([expect.stringMatching(/an h4 may not follow an h2/)]);
    expect(problemsOf("# Another Title {#t}\n")).toEqual([expect.stringMatching(/only the title may be a "#" heading/)]);
  });

  it("fails without a title or a revision date", () => {
    expect(problemsOf("Last revised: May 24, 2023\n\nText.\n", { raw: true })).toContainEqual(expect.stringMatching(/must start with the title/));
    expect(problemsOf("# Title\n\nText.\n", { raw: true })).toEqual([expect.stringMatching(/followed by a "Last revised/)]);
    expect(problemsOf("# Title\n\nLast revised: someday\n", { raw: true })).toEqual([expect.stringMatching(/not a date/)]);
  });

  it("reads the revision date strictly", () => {
    expect(isoDateOf("May 24, 2023")).toBe("2023-05-24");
    expect(isoDateOf("February 30, 2023")).toBeUndefined();
    expect(isoDateOf("24 May 2023")).toBeUndefined();
  });
});

describe("placeholders", () => {
  it("fills every placeholder from shared/site.ts", () => {
    const doc = compile("{{productName}} is run by {{legalEntity}} at {{siteDomain}}. Write to {{contactEmail}}, {{postalAddress}}, or call {{phone}}.\n");
    const paragraph = parse(doc.html).querySelector("p")!;
    expect(paragraph.text).toBe(
      `${site.productName} is run by ${site.legalEntity} at ${site.domain}. Write to ${site.contactEmail}, ${formatPostalAddress()}, or call ${site.phone}.`,
    );
    expect(doc.html).not.toMatch(/\{\{|\}\}/);
  });

  it("turns the contact email into a mailto link and the phone into a tel link", () => {
    const links = parse(compile("{{contactEmail}} or {{phone}}\n").html).querySelectorAll("a");
    expect(links.map((link) => [link.getAttribute("href"), link.text])).toEqual([
      [`mailto:${site.contactEmail}`, site.contactEmail],
      [telUri(site.phone), site.phone],
    ]);
    expect(telUri("1-800-555-0142")).toBe("tel:+18005550142");
  });

  it("fails on an unknown placeholder, with its line", () => {
    expect(problemsOf("Hello.\n\nCall {{fax}} now.\n")).toEqual([expect.stringMatching(/^line 7: unknown placeholder \{\{fax\}\} \(known: .*\{\{phone\}\}/)]);
  });

  it("fails on a malformed placeholder", () => {
    expect(problemsOf("Call {{ phone } now.\n")).toEqual([expect.stringMatching(/line 5: malformed placeholder/)]);
  });

  it("inserts values as plain text, never as Markdown", () => {
    const doc = compile("Name: {{name}}\n", { placeholders: { ...sitePlaceholders(), name: markdownText("*Star* [x](y) <b>") } });
    expect(parse(doc.html).querySelector("p")?.text).toBe("Name: *Star* [x](y) <b>");
    expect(doc.html).not.toContain("<em>");
  });

  it("reports every problem of a file at once", () => {
    const problems = problemsOf("{{nope}}\n\n## 1. A {#a}\n\n## 1. B {#a}\n\n## C\n");
    expect(problems).toHaveLength(4);
  });
});

describe("tables", () => {
  const body = "Table: Things we keep\n\n| Item | Kept | Why |\n| --- | --- | --- |\n| Logs | 30 days | Security |\n| Email {{contactEmail}} | 3 years | Records |\n";
  const doc = compile(body);
  const table = parse(doc.html).querySelector("table")!;

  it("takes the caption from the Table: line and removes that line", () => {
    expect(table.querySelector("caption")?.text).toBe("Things we keep");
    expect(doc.html).not.toContain("Table:");
  });

  it("marks column headers and row headers with their scope", () => {
    expect(table.querySelectorAll("thead th").map((th) => [th.getAttribute("scope"), th.text])).toEqual([
      ["col", "Item"],
      ["col", "Kept"],
      ["col", "Why"],
    ]);
    expect(table.querySelectorAll("tbody th").map((th) => [th.getAttribute("scope"), th.text])).toEqual([
      ["row", "Logs"],
      ["row", `Email ${site.contactEmail}`],
    ]);
  });

  it("labels every body cell with its column header for the phone layout", () => {
    const rows = table.querySelectorAll("tbody tr");
    expect(rows.map((row) => row.querySelectorAll("th, td").map((cell) => cell.getAttribute("data-label")))).toEqual([
      ["Item", "Kept", "Why"],
      ["Item", "Kept", "Why"],
    ]);
    expect(rows[0]!.querySelectorAll("td").map((cell) => cell.text)).toEqual(["30 days", "Security"]);
    expect(rows[1]!.querySelector("a")?.getAttribute("href")).toBe(`mailto:${site.contactEmail}`);
  });

  it("leaves the table's semantics to its native elements: no ARIA role on the table, its rows or its cells (HTML forbids them there)", () => {
    expect([table, ...table.querySelectorAll("*")].filter((element) => element.hasAttribute("role")).map((element) => element.tagName)).toEqual([]);
    expect(table.querySelectorAll('th[scope="col"]').length).toBe(3);
    expect(table.querySelectorAll('th[scope="row"]').length).toBe(2);
  });

  it("also accepts the Table: line directly above the table", () => {
    const tight = compile("Table: Tight\n| A | B |\n| --- | --- |\n| 1 | 2 |\n");
    expect(parse(tight.html).querySelector("caption")?.text).toBe("Tight");
  });

  it("fails on a table without a caption, and on a caption without a table", () => {
    expect(problemsOf("| A | B |\n| --- | --- |\n| 1 | 2 |\n")).toEqual([expect.stringMatching(/columns "A \| B" has no caption/)]);
    expect(problemsOf("Table: Orphan\n\nJust text.\n")).toEqual([expect.stringMatching(/"Table: Orphan" is not followed by a table/)]);
  });
});

describe("links", () => {
  it("turns email addresses into mailto links", () => {
    const link = parse(compile("Write to help@example.com today.\n").html).querySelector("a");
    expect(link?.getAttribute("href")).toBe("mailto:help@example.com");
  });

  it("keeps internal links relative", () => {
    const doc = compile("See [terms](/terms-of-use), [here](#one) and [there](/test#one).\n\n## 1. One {#one}\n", { selfPath: "/test" });
    expect(parse(doc.html).querySelectorAll("a").map((link) => link.getAttribute("href"))).toEqual(["/terms-of-use", "#one", "/test#one"]);
  });

  it("fails on a link to a section that does not exist on the page", () => {
    expect(problemsOf("[gone](#missing) [also](/test#nowhere)\n\n## 1. One {#one}\n", { selfPath: "/test" })).toEqual([
      expect.stringMatching(/#missing, but no heading has that id/),
      expect.stringMatching(/#nowhere, but no heading has that id/),
    ]);
  });

  it("fails on links that are neither relative nor https, mailto or tel", () => {
    expect(problemsOf("[x](javascript:alert(1)) [y](//evil.example) [z](page.html)\n")).toHaveLength(3);
  });

  it("fails on raw HTML and images", () => {
    expect(problemsOf("<div>block</div>\n")).toEqual([expect.stringMatching(/raw HTML is not allowed/)]);
    expect(problemsOf("Inline <b>bold</b>.\n")).toHaveLength(2);
    expect(problemsOf("![logo](/logo.svg)\n")).toEqual([expect.stringMatching(/images are not allowed/)]);
  });
});

describe("the real legal text", () => {
  const load = async (name: string) =>
    compileLegalMarkdown(await readFile(path.join(projectRoot, "content", "legal", `${name}.md`), "utf8"), { file: name, selfPath: `/${name}` });

  it("compiles the privacy policy with sections 1 to 18 and the anchors other pages link to", async () => {
    const doc = await load("privacy-policy");
    expect(doc.title).toBe("Auto Insurance Quotes Privacy Policy");
    expect(doc.lastRevised).toBe("May 24, 2023");
    const sections = doc.headings.filter((heading) => heading.level === 2);
    expect(sections.map((heading) => heading.number)).toEqual(Array.from({ length: 18 }, (_, index) => String(index + 1)));
    expect(sections[0]).toMatchObject({ text: "Insurance Disclaimer" });
    expect(sections[14]).toMatchObject({ text: "European Visitors" });
    expect(sections[15]).toMatchObject({ id: "california-rights", text: "California Privacy Rights" });
    expect(sections[16]).toMatchObject({ id: "state-privacy-rights", text: "Nevada and Other State Privacy Rights" });
    expect(doc.headings.find((heading) => heading.id === "nevada-opt-out")).toMatchObject({ level: 3 });
    expect(doc.headings.find((heading) => heading.id === "other-state-rights")).toMatchObject({ level: 3 });
    expect(doc.headings.find((heading) => heading.id === "appeals")).toMatchObject({ level: 4 });
    expect(doc.headings.find((heading) => heading.id === "notice-at-collection")).toMatchObject({ level: 3 });
    expect(sections[17]).toMatchObject({ id: "retention" });
    expect(doc.headings.some((heading) => heading.id === "cookies" && heading.level === 3)).toBe(true);
  });

  it("compiles the terms of use", async () => {
    const doc = await load("terms-of-use");
    expect(doc.title).toBe("Terms of Use");
    expect(doc.headings.filter((heading) => heading.level === 2).length).toBeGreaterThan(10);
  });
});

describe("the Vite plugin", () => {
  it("answers a .md?legal import with a module exporting the compiled page", async () => {
    const doc = compile("## 1. One {#one}\n");
    const module = (await import(`data:text/javascript,${encodeURIComponent(legalModuleCode(doc))}`)) as Record<string, unknown>;
    expect(module.title).toBe("A Policy");
    expect(module.headings).toEqual(doc.headings);
    expect(module.html).toBe(doc.html);
    expect(module.default).toEqual(doc);
  });

  it("compiles the file in its load hook and fails loudly on a bad one", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "legal-"));
    try {
      const good = path.join(dir, "good.md");
      const bad = path.join(dir, "bad.md");
      await writeFile(good, `${HEAD}## 1. One {#one}\n`);
      await writeFile(bad, `${HEAD}## 1. One\n`);
      const plugin = legalMarkdown();
      const load = plugin.load;
      if (typeof load !== "function") throw new Error("the plugin has no load hook");
      const watched: string[] = [];
      const context = {
        addWatchFile: (file: string) => watched.push(file),
        error: (message: string) => {
          throw new Error(message);
        },
      };
      type Load = (this: typeof context, id: string) => Promise<{ code: string } | null>;
      const run = (id: string) => (load as unknown as Load).call(context, id);
      expect(await run(good)).toBeNull();
      expect((await run(`${good}?legal`))?.code).toContain('export const title = "A Policy";');
      expect((await run(`${good}?import&legal`))?.code).toContain("export const html =");
      expect(watched).toContain(good);
      await expect(run(`${bad}?legal`)).rejects.toThrow(/Legal text cannot be built\. .*bad\.md: heading "## 1\. One" has no id/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
