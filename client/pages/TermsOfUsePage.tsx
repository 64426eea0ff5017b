/**
 * /terms-of-use. The full terms are being revised and arrive with their own issue; until then
 * this page states the essentials truthfully.
 */
import { Link } from "react-router-dom";
import { LegalLayout } from "../components/LegalLayout";
import { formatPostalAddress, site } from "../../shared/site";
import { paths } from "../../shared/routes";

export function TermsOfUsePage() {
  const email = <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>;
  return (
    <LegalLayout title="Terms of Use">
      <p className="legal-notice" role="note">
        Our full terms of use are being revised. Until the revised text is published, the essentials below apply. For
        the complete terms, write to {email}.
      </p>
      <h2 id="our-service">Our service</h2>
      <p>
        {site.productName} is a free service for US residents aged 18 or older. We are not an insurer or an agent: we
        connect you with insurers, agents and insurance services, who pay us. Quotes are offers from them, not from us.
      </p>
      <h2 id="your-privacy">Your privacy</h2>
      <p>
        How we handle personal information is described in our <Link to={paths.privacy}>privacy policy</Link>.
      </p>
      <h2 id="contact">Contact us</h2>
      <p>
        {email}
        <br />
        {site.legalEntity}, {formatPostalAddress()}
      </p>
    </LegalLayout>
  );
}
