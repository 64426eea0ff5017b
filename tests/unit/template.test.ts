import { describe, expect, it } from "vitest";
import { APP_MARKER, HEAD_MARKER, escapeHtml, fillTemplate, renderHead } from "../../server/pages/template";
import { isSafeRelativeLocation } from "../../server/pages/redirects";
import { CSP_NONCE_PLACEHOLDER } from "../../shared/csp-nonce";
import { formatLegalDate, formatPostalAddress } from "../../shared/site";

const template = `<head>${HEAD_MARKER}<script nonce="${CSP_NONCE_PLACEHOLDER}"></script></head><body><div id="root">${APP_MARKER}</div><script nonce="${CSP_NONCE_PLACEHOLDER}"></script></body>`;

describe("fillTemplate", () => {
  it("puts the nonce on every tag and splits around the app marker", () => {
    const parts = fillTemplate(template, "<title>T</title>", "abc123");
    expect(parts.start).toBe('<head><title>T</title><script nonce="abc123"></script></head><body><div id="root">');
    expect(parts.end).toBe('</div><script nonce="abc123"></script></body>');
  });

  it("inserts head content literally, without expanding $& patterns", () => {
    const parts = fillTemplate(template, "<title>$& $' $`</title>", "n");
    expect(parts.start).toContain("<title>$& $' $`</title>");
  });

  it("fails loudly on a template without the app marker", () => {
    expect(() => fillTemplate("<html></html>", "", "n")).toThrow(/marker/);
  });
});

describe("renderHead", () => {
  it("escapes text and builds an absolute canonical link from the base URL", () => {
    const head = renderHead({ title: 'A "quoted" <title>', description: "d & e", canonicalPath: "/zipcode" }, "https://www.example.com");
    expect(head).toContain("<title>A &quot;quoted&quot; &lt;title&gt;</title>");
    expect(head).toContain('content="d &amp; e"');
    expect(head).toContain('<link rel="canonical" href="https://www.example.com/zipcode" />');
  });

  it("marks pages that must not be indexed and gives them no canonical link", () => {
    const head = renderHead({ title: "t", description: "d", canonicalPath: "/x", noindex: true }, undefined);
    expect(head).toContain('<meta name="robots" content="noindex" />');
    expect(head).not.toContain("canonical");
  });

  it("escapes every HTML-special character", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });
});

describe("isSafeRelativeLocation", () => {
  it("accepts site paths and refuses anything a browser could read as another host", () => {
    expect(isSafeRelativeLocation("/?zip=12345")).toBe(true);
    expect(isSafeRelativeLocation("/zipcode")).toBe(true);
    for (const bad of ["//evil.example", "/\\evil.example", "https://evil.example", "evil", "/a\nb", "/a b", ""]) {
      expect(isSafeRelativeLocation(bad), bad).toBe(false);
    }
  });
});

describe("site constants", () => {
  it("formats the legal revision date and the address for readers", () => {
    expect(formatLegalDate()).toBe("May 24, 2023");
    expect(formatPostalAddress()).toMatch(/^.+, .+, [A-Z]{2} \d{5}$/);
  });
});
