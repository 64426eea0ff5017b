/**
 * The frame of every signed-in console page: skip link, header (product, "Operations console",
 * who is signed in, sign-out), the navigation (ops-only pages only for ops), the flash message
 * and the page itself in <main id="main">.
 */
import type { ReactNode } from "react";
import { adminPaths, type AdminRole, type AdminSession, type Flash } from "../../shared/admin-views";
import { Logo } from "../components/Logo";
import { CsrfField } from "./CsrfField";
import { FlashMessage } from "./FlashMessage";

export type NavSection = "report" | "journey" | "leads" | "buyers" | "sources" | "experiments" | "privacy";

interface NavItem {
  section: NavSection;
  label: string;
  href: string;
  /** Roles that may open the page (the server enforces it; the menu only stops offering it). */
  roles: readonly AdminRole[];
}

const navItems: readonly NavItem[] = [
  { section: "report", label: "Report", href: adminPaths.report, roles: ["analyst", "ops"] },
  { section: "journey", label: "Journey", href: adminPaths.journey, roles: ["analyst", "ops"] },
  { section: "leads", label: "Leads", href: adminPaths.leads, roles: ["analyst", "ops"] },
  { section: "buyers", label: "Buyers", href: adminPaths.buyers, roles: ["analyst", "ops"] },
  { section: "sources", label: "Sources", href: adminPaths.sources, roles: ["analyst", "ops"] },
  { section: "experiments", label: "Experiments", href: adminPaths.experiments, roles: ["analyst", "ops"] },
  { section: "privacy", label: "Privacy requests", href: adminPaths.privacy, roles: ["ops"] },
];

export function ConsoleBrand() {
  return (
    <span className="console-brand">
      <Logo />
      <span className="console-name">Operations console</span>
    </span>
  );
}

interface AdminLayoutProps {
  session?: AdminSession;
  flash?: Flash;
  /** The section to mark as current in the navigation (none on the error page). */
  current?: NavSection;
  children: ReactNode;
}

export function AdminLayout({ session, flash, current, children }: AdminLayoutProps) {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="console-header">
        <div className="console-bar">
          <a className="console-home" href={adminPaths.report}>
            <ConsoleBrand />
          </a>
          {session ? (
            <div className="console-user">
              <span>
                Signed in as <strong>{session.name}</strong> <span className="role-badge">{session.role}</span>
              </span>
              <form method="post" action={adminPaths.signOut} className="sign-out">
                <CsrfField token={session.csrfToken} />
                <button type="submit" className="button-quiet">
                  Sign out
                </button>
              </form>
            </div>
          ) : null}
        </div>
        {session ? (
          <nav className="console-nav" aria-label="Console">
            <ul>
              {navItems
                .filter((item) => item.roles.includes(session.role))
                .map((item) => (
                  <li key={item.section}>
                    <a href={item.href} aria-current={item.section === current ? "page" : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
            </ul>
          </nav>
        ) : null}
      </header>
      <main id="main" className="console-main" tabIndex={-1}>
        {flash ? <FlashMessage flash={flash} /> : null}
        {children}
      </main>
    </>
  );
}
