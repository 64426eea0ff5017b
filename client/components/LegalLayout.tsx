import { SiteHeader } from "./SiteHeader";
import { SiteFooter } from "./SiteFooter";
import { LegalStyles } from "../legal/LegalStyles";
import { LegalToc } from "../legal/LegalToc";
import { LegalBody } from "../legal/LegalBody";
import type { LegalDocument } from "../legal/legal-document";
import { formatLegalDate } from "../../shared/site";

/**
 * The frame both legal pages share: the site header (logo to /zipcode), the title and revision
 * date (and, for the privacy policy, the date of its last review), "On this page", the compiled text, the site footer. One h1; the text brings the h2
 * sections and h3 subsections.
 */
export function LegalLayout({ content, reviewedIso }: { content: LegalDocument; reviewedIso?: string }) {
  return (
    <div className="page">
      <LegalStyles />
      <SiteHeader />
      <main id="main" className="legal-page">
        <div className="legal-page-grid">
          <div className="legal-page-heading">
            <h1>{content.title}</h1>
            <p className="legal-page-revised">
              Last revised: <time dateTime={content.lastRevisedIso}>{content.lastRevised}</time>
            </p>
            {reviewedIso ? (
              <p className="legal-page-revised legal-page-reviewed">
                Last reviewed: <time dateTime={reviewedIso}>{formatLegalDate(reviewedIso)}</time>
              </p>
            ) : null}
          </div>
          <LegalToc headings={content.headings} />
          <LegalBody html={content.html} />
        </div>
      </main>
      <SiteFooter />
    </div>
  );
}
