import type { ReactNode } from "react";
import { SiteHeader } from "./SiteHeader";
import { SiteFooter } from "./SiteFooter";
import { formatLegalDate } from "../../shared/site";

/** The frame both legal pages share: header with the logo to /zipcode, title, revision date, footer. */
export function LegalLayout({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="page">
      <SiteHeader />
      <main id="main" className="container legal">
        <h1>{title}</h1>
        <p className="legal-revised">Last revised: {formatLegalDate()}</p>
        {children}
      </main>
      <SiteFooter />
    </div>
  );
}
