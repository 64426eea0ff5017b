/**
 * /terms-of-use: the text is content/legal/terms-of-use.md, compiled at build time
 * (build/legal-markdown.ts). This module is a lazy route (client/routes.tsx), so the terms are
 * downloaded only by visitors who open a legal page.
 */
import terms from "../../content/legal/terms-of-use.md?legal";
import { LegalLayout } from "../components/LegalLayout";

export function TermsOfUsePage() {
  return <LegalLayout content={terms} />;
}
