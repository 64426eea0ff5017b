/**
 * The compiled legal text (trusted HTML built from content/legal/*.md at build time, never from
 * visitors' input). Its links are plain anchors; a click on one that leads to another page of this
 * app is turned into a client-side navigation, as a <Link> would do. Links to a section of the
 * same page are left to the browser (it scrolls and moves focus), and links elsewhere
 * (e.g. a page the server renders outside the router) load normally.
 *
 * Whether a path is a page of the app is decided by the page list in shared/routes.ts, not by
 * the route table: the table imports the pages, which import this module (an import cycle).
 */
import type { MouseEvent } from "react";
import { matchPath, useNavigate } from "react-router-dom";
import { pagePaths } from "../../shared/routes";

const isAppPage = (pathname: string): boolean => pagePaths.some((path) => matchPath(path, pathname) !== null);

export function LegalBody({ html }: { html: string }) {
  const navigate = useNavigate();
  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!(anchor instanceof HTMLAnchorElement) || (anchor.target && anchor.target !== "_self") || anchor.hasAttribute("download")) return;
    const url = new URL(anchor.href, window.location.href);
    if (url.origin !== window.location.origin) return;
    const samePage = url.pathname === window.location.pathname && url.search === window.location.search;
    if (samePage && url.hash) return;
    if (!isAppPage(url.pathname)) return;
    event.preventDefault();
    void navigate(`${url.pathname}${url.search}${url.hash}`);
  };
  // The handler only delegates clicks on the links inside, which are keyboard-operable themselves.
  return <div className="legal-body" onClick={onClick} dangerouslySetInnerHTML={{ __html: html }} />;
}
