/**
 * /privacy-policy. The full policy (18 sections) is being revised and arrives with its own issue;
 * until then this page states our core commitments truthfully and keeps the anchors other pages
 * link to (#california-rights, #cookies).
 */
import { LegalLayout } from "../components/LegalLayout";
import { formatPostalAddress, site } from "../../shared/site";

export function PrivacyPolicyPage() {
  const email = <a href={`mailto:${site.contactEmail}`}>{site.contactEmail}</a>;
  return (
    <LegalLayout title="Auto Insurance Quotes Privacy Policy">
      <p className="legal-notice" role="note">
        Our full privacy policy is being revised. Until the revised text is published, the commitments below apply. For
        any question, or a copy of the complete policy, write to {email}.
      </p>
      <h2 id="who-we-are">Who we are</h2>
      <p>
        {site.productName} is a free service operated by {site.legalEntity} that helps US residents aged 18 or older
        compare car insurance quotes. We are not an insurance company or agent. Insurers, agents and insurance services
        pay us when we connect them with people who ask for quotes.
      </p>
      <h2 id="information-we-use">Information we use</h2>
      <p>
        When you ask for quotes we use the ZIP code and answers you give us to connect you with insurers, agents and
        insurance services that may contact you. We keep server logs for security and to measure our advertising, with
        IP addresses shortened so they do not identify you.
      </p>
      <h2 id="cookies">Cookies</h2>
      <p>
        We do not use advertising cookies on this site. You can block or delete cookies in your browser settings at any
        time.
      </p>
      <h2 id="california-rights">California privacy rights</h2>
      <p>
        If you live in California you may ask to know, correct or delete the personal information we hold about you,
        and to opt out of its sale or sharing. We will not treat you differently for using these rights. Send your
        request to {email}.
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
