/**
 * /privacy-policy: the text is content/legal/privacy-policy.md, compiled at build time
 * (build/legal-markdown.ts). This module is a lazy route (client/routes.tsx), so the policy is
 * downloaded only by visitors who open a legal page.
 */
import policy from "../../content/legal/privacy-policy.md?legal";
import { LegalLayout } from "../components/LegalLayout";
import { site } from "../../shared/site";

export function PrivacyPolicyPage() {
  return <LegalLayout content={policy} reviewedIso={site.legalReviewed} />;
}
