/**
 * `import policy from "…/privacy-policy.md?legal"`: a legal page compiled at build time
 * (build/legal-markdown.ts). The shapes mirror LegalDocument in ./legal-document.ts (an ambient
 * module cannot import it); the pages pass these modules where a LegalDocument is expected, so
 * the type check catches any drift.
 */
declare module "*.md?legal" {
  export const title: string;
  export const lastRevised: string;
  export const lastRevisedIso: string;
  export const headings: readonly { level: 2 | 3 | 4 | 5 | 6; number: string | null; text: string; id: string }[];
  export const html: string;
  const legalDocument: {
    title: string;
    lastRevised: string;
    lastRevisedIso: string;
    headings: typeof headings;
    html: string;
  };
  export default legalDocument;
}
