import type { LegalHeading } from "./legal-document";

/**
 * "On this page": a link to every section (the h2 headings) of a legal page. Plain `#id` links, so
 * they work before hydration and without JavaScript; the browser scrolls and moves keyboard focus.
 */
export function LegalToc({ headings }: { headings: readonly LegalHeading[] }) {
  const sections = headings.filter((heading) => heading.level === 2);
  return (
    <nav className="legal-toc" aria-label="On this page">
      <p className="legal-toc-title" aria-hidden="true">
        On this page
      </p>
      <ol className="legal-toc-list">
        {sections.map((section) => (
          <li key={section.id}>
            <a href={`#${section.id}`}>
              {section.number ? <span className="legal-toc-number">{section.number}.</span> : null}
              {section.number ? " " : null}
              {section.text}
            </a>
          </li>
        ))}
      </ol>
    </nav>
  );
}
