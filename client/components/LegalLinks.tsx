import { Link } from "react-router-dom";
import { LEGAL_LINKS } from "../../shared/routes";

/** The legal links (shared/routes.ts, LEGAL_LINKS) as the footers' "Legal" navigation. */
export function LegalLinks({ className = "footer-links" }: { className?: string }) {
  return (
    <nav aria-label="Legal">
      <ul className={className}>
        {LEGAL_LINKS.map((link) => (
          <li key={link.href}>
            <Link to={link.href}>{link.text}</Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
