import { formatPostalAddress, site } from "../../shared/site";
import { LegalLinks } from "./LegalLinks";

/** The footer on the landing and legal pages: legal links, the postal address, the monitoring notice. */
export function SiteFooter() {
  const year = new Date().getFullYear();
  return (
    <footer className="site-footer">
      <div className="container">
        <LegalLinks />
        <address className="footer-address">
          {site.legalEntity}, {formatPostalAddress()}
        </address>
        <p className="footer-notice">
          Activity on this site may be monitored or recorded. {site.productName} is not an insurance company or agent;
          it is a free service that connects you with insurers, agents and insurance services, who pay us.
        </p>
        <p className="footer-copyright">
          © <span suppressHydrationWarning>{year}</span> {site.productName}. All rights reserved.
        </p>
      </div>
    </footer>
  );
}
