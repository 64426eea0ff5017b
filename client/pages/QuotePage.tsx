/**
 * /: the quote page. The quote form is a separate static page (rapidfire.html) shown in a
 * full-height, same-origin frame (spec section 2); it receives the ZIP and campaign ids that
 * passed validation here, so nothing unvalidated reaches its address, and this visit's id (the
 * address's, or the one minted for this page view: client/visit-id.ts).
 *
 * The page is the header and the frame, nothing else: no footer of its own. The legal links are
 * at the end of the form's own content (rapidfire.html's footer), so each appears once, and no
 * band stays over the form to hide a focused field on a phone (issue 32).
 */
import { SiteHeader } from "../components/SiteHeader";
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
    </div>
  );
}
