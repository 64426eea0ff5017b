/**
 * Plain HTML answers for when React cannot render (a crashed shell) or the request never
 * reaches it (a malformed URL). Self-contained: no scripts, inline-free, readable on a phone.
 *
 * A 404 is the exception: the not-found page is a page of the site (issue 42), so the fixed 404
 * (a missing file under /assets, a refused consent link) is the router's not-found page
 * (client/pages/NotFoundPage.tsx) in plain HTML: the same header, words, link and footer, the same
 * classes, styled by public/not-found.css (the site's rules those parts use). An unknown address
 * gets one page however the server answers it; tests/http/pages.test.ts compares the two.
 */
import { STATUS_CODES } from "node:http";
import { escapeHtml } from "./template";
import { formatPostalAddress, site } from "../../shared/site";
import { LEGAL_LINKS, paths } from "../../shared/routes";

const MESSAGES: Record<number, string> = {
  400: "We could not understand that address. Please check the link and try again.",
  404: "Oops! Page not found",
  403: "This form has expired. Please go back, reload the page and send it again.",
  405: "That kind of request is not supported here.",
  409: "We already received this request.",
  413: "That request was too large.",
  415: "That request was not sent as a web form. Please use the form on the page.",
  429: "Too many requests from your connection. Please wait a few minutes and try again.",
  431: "That request's headers were too large.",
  500: "Something went wrong on our side. Please try again in a moment.",
  503: "We are briefly unavailable. Please try again in a moment.",
};

export function errorMessage(status: number): string {
  return MESSAGES[status] ?? (status >= 500 ? MESSAGES[500]! : MESSAGES[400]!);
}

/** The site header (client/components/SiteHeader.tsx and Logo.tsx): the logo leads to the landing page. */
function siteHeaderHtml(): string {
  return `<header class="site-header"><div class="container site-header-inner"><a class="logo-link" aria-label="${escapeHtml(`${site.productName} home`)}" href="${paths.landing}"><span class="logo"><svg class="logo-mark" width="32" height="32" viewBox="0 0 32 32" aria-hidden="true" focusable="false"><path d="M16 2 4 6.5v8.2C4 22.4 9.1 28.3 16 30c6.9-1.7 12-7.6 12-15.3V6.5L16 2Z" fill="#0b5cab"></path><path d="m10.5 16.2 3.8 3.8 7.4-8" fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round" stroke-linejoin="round"></path></svg><span class="logo-text">${escapeHtml(site.productName)}</span></span></a></div></header>`;
}

/** The legal footer (client/components/SiteFooter.tsx and LegalLinks.tsx), this year's. */
function siteFooterHtml(year: number): string {
  const links = LEGAL_LINKS.map((link) => `<li><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></li>`).join("");
  const name = escapeHtml(site.productName);
  return `<footer class="site-footer"><div class="container"><nav aria-label="Legal"><ul class="footer-links">${links}</ul></nav><address class="footer-address">${escapeHtml(`${site.legalEntity}, ${formatPostalAddress()}`)}</address><p class="footer-notice">Activity on this site may be monitored or recorded. ${name} is not an insurance company or agent; it is a free service that connects you with insurers, agents and insurance services, who pay us.</p><p class="footer-copyright">© <span>${year}</span> ${name}. All rights reserved.</p></div></footer>`;
}

/**
 * The not-found page (spec section 8) without React: its title, description and noindex are the
 * router's (client/page-meta.ts, notFoundMeta). No reference number: a wrong address is no fault
 * to report, and the router's page shows none either (the not_found log line has the request id).
 */
export function notFoundPageHtml(now: Date = new Date()): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="theme-color" content="#0b5cab" />
<link rel="icon" href="/favicon.svg" type="image/svg+xml" />
<title>${escapeHtml(`Page not found | ${site.productName}`)}</title>
<meta name="description" content="The page you were looking for does not exist." />
<meta name="robots" content="noindex" />
<link rel="stylesheet" href="/not-found.css" />
</head>
<body>
<div class="page">${siteHeaderHtml()}<main id="main" class="status-page"><h1 class="status-code">404</h1><p class="status-message">${escapeHtml(errorMessage(404))}</p><a class="button-primary" href="${paths.quote}">Return to Home</a></main>${siteFooterHtml(now.getFullYear())}</div>
</body>
</html>
`;
}

export function errorPageHtml(status: number, requestId?: string, backTo: string = paths.quote): string {
  if (status === 404) return notFoundPageHtml();
  const title = `${status} ${STATUS_CODES[status] ?? "Error"}`;
  const message = errorMessage(status);
  const reference = requestId ? `<p class="ref">Reference: <code>${escapeHtml(requestId)}</code></p>` : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="robots" content="noindex" />
<title>${escapeHtml(`${title} | ${site.productName}`)}</title>
<link rel="stylesheet" href="/error.css" />
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
${reference}
<p><a href="${escapeHtml(backTo)}">${backTo === paths.quote ? "Return to Home" : "Go back to the form"}</a></p>
</main>
</body>
</html>
`;
}
