/**
 * The consent certificate as a plain HTML page (the error pages' style: no scripts, nothing
 * inline to run, readable on a phone): what the visitor saw and did, the contact details masked.
 */
import { escapeHtml } from "../pages/template";
import { site } from "../../shared/site";
import { PHONE_PLACEHOLDER } from "../../shared/consent-disclosure";
import type { ConsentCertificate } from "./records";
import { maskEmail, maskName, maskPhone } from "./mask";

const text = (value: string | null | undefined) => (value ? escapeHtml(value) : "<em>not recorded</em>");
const code = (value: string | null | undefined) => (value ? `<code>${escapeHtml(value)}</code>` : "<em>not recorded</em>");
const time = (value: Date | null) => (value ? `<time datetime="${value.toISOString()}">${value.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC")}</time>` : "<em>not recorded</em>");

function elapsed(from: Date | null, to: Date): string {
  if (!from) return "";
  const seconds = Math.max(0, Math.round((to.getTime() - from.getTime()) / 1000));
  return ` (${Math.floor(seconds / 60)} min ${seconds % 60} s after the form opened)`;
}

/** The partners the text names, each with its buyer id when it is one. */
function namedCompanies(certificate: ConsentCertificate): string {
  const paired = certificate.partnerNames.length === certificate.buyerIds.length;
  const items = certificate.partnerNames.map((name, index) => {
    const id = paired ? certificate.buyerIds[index] : undefined;
    return `<li>${escapeHtml(name)}${id ? ` <span class="id">(buyer id <code>${escapeHtml(id)}</code>)</span>` : ""}</li>`;
  });
  if (items.length > 0) return `<ul>${items.join("")}</ul>`;
  // Since wording version 4 a visitor no buyer could take agrees to our calls alone (decision 039).
  if (certificate.disclosureText.includes(`I agree that ${site.legalEntity} may call`)) return `<p>None: the words name only ${escapeHtml(site.legalEntity)}.</p>`;
  return "<p><em>not recorded</em></p>";
}

/** Where the words name the phone number, the form showed the number the visitor typed: the one recorded. */
function phoneShown(certificate: ConsentCertificate): string {
  if (!certificate.disclosureText.includes(PHONE_PLACEHOLDER)) return "";
  return `<p>In the form, the words “${escapeHtml(PHONE_PLACEHOLDER)}” showed the number the visitor had typed, the phone number recorded above (${text(maskPhone(certificate.phone))}).</p>`;
}

export function certificatePageHtml(certificate: ConsentCertificate, buyerId: string): string {
  const rows: Array<[string, string]> = [
    ["Lead reference", code(certificate.leadReference)],
    ["Certificate", code(certificate.certificateId)],
    ["Issued to buyer", code(buyerId)],
    ["Form opened at", time(certificate.formOpenedAt)],
    ["Consented (submitted) at", time(certificate.consentedAt) + elapsed(certificate.formOpenedAt, certificate.consentedAt)],
    ["Consent box ticked", certificate.checkboxChecked ? "Yes" : "No"],
    ["Quote form address", code(certificate.formUrl)],
    ["Framing page address", code(certificate.pageUrl)],
    ["IP address", code(certificate.ip)],
    ["User agent", code(certificate.userAgent)],
    ["Terms of Use accepted", text(certificate.termsVersion && `revision of ${certificate.termsVersion}`)],
    ["Privacy Policy read", text(certificate.privacyVersion && `revision of ${certificate.privacyVersion}`)],
    ["Name", text(maskName(certificate.firstName, certificate.lastName))],
    ["Phone", text(maskPhone(certificate.phone))],
    ["Email", text(maskEmail(certificate.email))],
    ["ZIP code", text(certificate.zip)],
    // The FCC's revocation rule: a revoked consent no longer covers calls or texts, whatever it said.
    ["Consent revoked", certificate.revokedAt ? `${time(certificate.revokedAt)} (request ${code(certificate.revocationReference ?? "")}): do not call or text this person on this consent` : "No"],
    // The providers' own evidence, when their scripts ran (issue 44): shown as the visitor's browser
    // sent it, as text (not a link: the value is the browser's, whatever it is). The buyer verifies
    // it with the provider; a URL or token the page does not have is not claimed.
    ...(certificate.trustedformCertUrl ? [["TrustedForm certificate (as the form sent it)", code(certificate.trustedformCertUrl)] satisfies [string, string]] : []),
    ...(certificate.leadidToken ? [["Jornaya LeadiD token (as the form sent it)", code(certificate.leadidToken)] satisfies [string, string]] : []),
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="robots" content="noindex, nofollow" />
<title>${escapeHtml(`Consent certificate ${certificate.leadReference} | ${site.productName}`)}</title>
<link rel="stylesheet" href="/error.css" />
<link rel="stylesheet" href="/consent-certificate.css" />
</head>
<body>
<main class="certificate">
<h1>Consent certificate</h1>
<p>What a visitor to ${escapeHtml(site.domain)} saw and did when they asked for car insurance quotes, as ${escapeHtml(site.legalEntity)} recorded it. Contact details are masked.</p>
<table>
<tbody>
${rows.map(([label, value]) => `<tr><th scope="row">${escapeHtml(label)}</th><td>${value}</td></tr>`).join("\n")}
</tbody>
</table>
<h2>Disclosure shown beside the consent box</h2>
<p>Version ${certificate.disclosureVersion}, SHA-256 ${code(certificate.disclosureSha256)} (of the text below, UTF-8).</p>
<blockquote class="disclosure">${escapeHtml(certificate.disclosureText)}</blockquote>
${phoneShown(certificate)}
<h2>Companies named</h2>
${namedCompanies(certificate)}
</main>
</body>
</html>
`;
}
