/**
 * Plain HTML answers for when React cannot render (a crashed shell) or the request never
 * reaches it (a malformed URL). Self-contained: no scripts, inline-free, readable on a phone.
 */
import { STATUS_CODES } from "node:http";
import { escapeHtml } from "./template";
import { site } from "../../shared/site";
import { paths } from "../../shared/routes";

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

export function errorPageHtml(status: number, requestId?: string, backTo: string = paths.quote): string {
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
