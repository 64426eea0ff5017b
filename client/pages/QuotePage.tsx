/**
 * /: the quote page. The quote form is a separate static page (rapidfire.html) shown in a
 * full-height, same-origin frame (spec section 2); it receives the ZIP and campaign ids that
 * passed validation here, so nothing unvalidated reaches its address, and this visit's id (the
 * address's, or the one minted for this page view: client/visit-id.ts).
 */
import { SiteHeader } from "../components/SiteHeader";
import { LegalLinks } from "../components/LegalLinks";
import { campaignQueryString } from "../../shared/campaign-format";
import { paths } from "../../shared/routes";
import { useVisit } from "../visit-id";

export function QuotePage() {
  // The address's ZIP and campaign ids, validated by the route's loader (client/visit-id.ts).
  const { zip, campaign, visitId } = useVisit();
  const frameSrc = `${paths.quoteForm}${campaignQueryString({ ...(zip ? { zip } : {}), ...campaign, vid: visitId })}`;
  return (
    <div className="quote-layout">
      <SiteHeader />
      <main id="main" className="quote-main">
        <h1 className="visually-hidden">Your free car insurance quote</h1>
        <iframe
          className="quote-frame"
          src={frameSrc}
          title="Car insurance quote form"
          sandbox="allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox"
        />
      </main>
      {/* One slim line under the frame: the legal links every page carries (issue 14). */}
      <footer className="quote-footer">
        <LegalLinks className="footer-links quote-footer-links" />
      </footer>
    </div>
  );
}
