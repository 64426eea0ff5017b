/**
 * The consent certificate's pure parts (server/consent/): its id, the signed links buyers get,
 * the key behind them, the masking of contact details, and the page's HTML.
 */
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CERTIFICATE_ID_PATTERN, newCertificateId } from "../../server/consent/certificate-id";
import { certificateSecret, certificateSignature, certificateUrl, verifyCertificateLink } from "../../server/consent/certificate";
import { maskEmail, maskName, maskPhone } from "../../server/consent/mask";
import { certificatePageHtml } from "../../server/consent/page";
import type { ConsentCertificate } from "../../server/consent/records";
import { CONSENT_DISCLOSURE, disclosureText } from "../../shared/consent-disclosure";
import { ConfigError, loadConfig } from "../../server/config";

const SECRET = "certificate-test-secret-0123456789abcdef";
const ID = "AAECAwQFBgcICQoLDA0ODw";
const KEY = { secret: SECRET, baseUrl: "https://www.quoteridge.com" };

describe("certificate ids", () => {
  it("are 128 random bits in base64url: 22 characters, never the same twice", () => {
    const ids = Array.from({ length: 2_000 }, newCertificateId);
    for (const id of ids) expect(id).toMatch(CERTIFICATE_ID_PATTERN);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Buffer.from(ids[0]!, "base64url")).toHaveLength(16);
  });
});

describe("certificate links", () => {
  it("point at /consent/<id> with the buyer and the hex HMAC-SHA256 of \"<id>.<buyer>\"", () => {
    const url = new URL(certificateUrl(ID, "acme", KEY));
    expect(url.origin + url.pathname).toBe(`https://www.quoteridge.com/consent/${ID}`);
    expect(url.searchParams.get("b")).toBe("acme");
    expect(url.searchParams.get("s")).toBe(createHmac("sha256", SECRET).update(`${ID}.acme`).digest("hex"));
    expect(certificateUrl(ID, "acme", { ...KEY, baseUrl: "https://www.quoteridge.com/" })).toBe(url.toString());
  });

  it("verify for their own id and buyer only, and only under the key that signed them", () => {
    const signature = certificateSignature(SECRET, ID, "acme");
    expect(verifyCertificateLink(SECRET, ID, "acme", signature)).toBe(true);
    expect(verifyCertificateLink(SECRET, ID, "beta", signature)).toBe(false);
    expect(verifyCertificateLink(SECRET, "BAECAwQFBgcICQoLDA0ODw", "acme", signature)).toBe(false);
    expect(verifyCertificateLink(`${SECRET}x`, ID, "acme", signature)).toBe(false);
    expect(verifyCertificateLink(SECRET, ID, "acme", signature.toUpperCase())).toBe(false);
  });

  it("refuse anything malformed or missing without throwing", () => {
    const signature = certificateSignature(SECRET, ID, "acme");
    for (const [id, buyer, sig] of [
      [undefined, "acme", signature],
      [ID, undefined, signature],
      [ID, "acme", undefined],
      [ID, ["acme", "acme"], signature],
      [ID, "acme", [signature]],
      [`${ID}A`, "acme", signature],
      [ID, "Acme", signature],
      [ID, "acme", signature.slice(1)],
      [ID, "acme", `${signature}0`],
      ["../../etc", "acme", signature],
    ] as const) {
      expect(verifyCertificateLink(SECRET, id, buyer, sig)).toBe(false);
    }
  });

  it("never verify a flipped signature (property)", () => {
    const signature = certificateSignature(SECRET, ID, "acme");
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 63 }), fc.integer({ min: 1, max: 15 }), (index, delta) => {
        const flipped = signature.slice(0, index) + ((parseInt(signature[index]!, 16) + delta) % 16).toString(16) + signature.slice(index + 1);
        return !verifyCertificateLink(SECRET, ID, "acme", flipped);
      }),
    );
  });
});

describe("the links' key", () => {
  it("is CERTIFICATE_SECRET when set", () => {
    expect(certificateSecret({ CERTIFICATE_SECRET: SECRET, CSRF_SECRET: "c".repeat(32) }, "random")).toBe(SECRET);
  });

  it("is otherwise derived from CSRF_SECRET, under its own label (a CSRF key never signs a link)", () => {
    const csrf = "c".repeat(40);
    const derived = certificateSecret({ CSRF_SECRET: csrf }, "random");
    expect(Buffer.isBuffer(derived)).toBe(true);
    expect(derived).not.toEqual(Buffer.from(csrf));
    expect(certificateSecret({ CSRF_SECRET: csrf }, "other random")).toEqual(derived);
    expect(certificateSignature(derived, ID, "acme")).not.toBe(certificateSignature(csrf, ID, "acme"));
  });

  it("is required when BUYERS_FILE is set: CERTIFICATE_SECRET or CSRF_SECRET, never random per process", () => {
    expect(() => loadConfig({ BUYERS_FILE: "buyers.json" })).toThrow(ConfigError);
    expect(() => loadConfig({ BUYERS_FILE: "buyers.json" })).toThrow(/CERTIFICATE_SECRET: required when BUYERS_FILE is set/);
    expect(loadConfig({ BUYERS_FILE: "buyers.json", CERTIFICATE_SECRET: SECRET }).CERTIFICATE_SECRET).toBe(SECRET);
    expect(loadConfig({ BUYERS_FILE: "buyers.json", CSRF_SECRET: SECRET }).CERTIFICATE_SECRET).toBeUndefined();
    expect(loadConfig({}).CERTIFICATE_SECRET).toBeUndefined();
    expect(() => loadConfig({ CERTIFICATE_SECRET: "too short" })).toThrow(/CERTIFICATE_SECRET: must be at least 32 characters/);
  });
});

describe("masking", () => {
  it("keeps a US phone's area code and last two digits", () => {
    expect(maskPhone("+14155550134")).toBe("(415) ***-**34");
    expect(maskPhone("4155550134")).toBe("(415) ***-**34");
    expect(maskPhone("+447700900123")).toBe("**********23");
    expect(maskPhone("7")).toBe("**");
  });

  it("keeps an email's first character and its domain", () => {
    expect(maskEmail("ana.diaz@example.com")).toBe("a***@example.com");
    expect(maskEmail("Ñandú+quotes@example.pr")).toBe("Ñ***@example.pr");
    expect(maskEmail("no-at-sign")).toBe("***");
    expect(maskEmail("@example.com")).toBe("***");
  });

  it("keeps each name's first letter", () => {
    expect(maskName("Ana", "Diaz-Ortega")).toBe("A*** D***");
    expect(maskName("José Ángel", "Núñez-O’Connor")).toBe("J*** N***");
    expect(maskName(null, "Lee")).toBe("L***");
    expect(maskName(null, null)).toBe("");
  });

  it("shows no more than a phone's area code and last two digits, or an email's first character and domain (property)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[2-9]\d{2}[2-9]\d{6}$/), (national) => {
        const masked = maskPhone(`+1${national}`);
        return masked === `(${national.slice(0, 3)}) ***-**${national.slice(8)}`;
      }),
    );
    fc.assert(
      fc.property(fc.emailAddress(), (email) => {
        const at = email.lastIndexOf("@");
        return maskEmail(email) === `${email[0]}***${email.slice(at)}`;
      }),
    );
  });
});

describe("the certificate page", () => {
  const certificate: ConsentCertificate = {
    certificateId: ID,
    leadReference: "LD-7K3M-Q9XD",
    disclosureVersion: 3,
    disclosureSha256: "a".repeat(64),
    disclosureText: "I agree that Acme <Insurance> & Co may contact me.",
    partnerNames: ["Acme <Insurance> & Co"],
    buyerIds: ["acme"],
    checkboxChecked: true,
    formOpenedAt: new Date("2026-11-23T15:00:00.000Z"),
    consentedAt: new Date("2026-11-23T15:02:05.250Z"),
    formUrl: "https://www.quoteridge.com/rapidfire.html?zip=90210&sid=a1",
    pageUrl: "https://www.quoteridge.com/?zip=90210&sid=a1",
    ip: "203.0.113.9",
    userAgent: '<script>alert("x")</script>',
    termsVersion: "2023-05-24",
    privacyVersion: "2023-05-24",
    firstName: "Ana",
    lastName: "Diaz",
    phone: "+14155550134",
    email: "ana.diaz@example.com",
    zip: "90210",
    revokedAt: null,
    revocationReference: null,
  };
  const html = certificatePageHtml(certificate, "acme");

  it("shows the facts, the contact details masked", () => {
    for (const fact of [
      "LD-7K3M-Q9XD",
      ID,
      "Version 3",
      "a".repeat(64),
      "I agree that Acme &lt;Insurance&gt; &amp; Co may contact me.",
      "(buyer id <code>acme</code>)",
      "2026-11-23 15:00:00 UTC",
      "2026-11-23 15:02:05 UTC",
      "(2 min 5 s after the form opened)",
      "https://www.quoteridge.com/rapidfire.html?zip=90210&amp;sid=a1",
      "203.0.113.9",
      "revision of 2023-05-24",
      "A*** D***",
      "(415) ***-**34",
      "a***@example.com",
      "90210",
    ]) {
      expect(html, fact).toContain(fact);
    }
    for (const secret of ["Diaz", "5550134", "ana.diaz"]) expect(html, secret).not.toContain(secret);
  });

  it("is plain HTML: escaped, no script, not indexed", () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).toContain('<meta name="robots" content="noindex, nofollow" />');
    expect(html).not.toMatch(/\son\w+=/i);
  });

  it("shows a revoked consent as revoked, with when and the request, and a standing one as not revoked", () => {
    const cell = (html: string) => /<th scope="row">Consent revoked<\/th><td>(.*?)<\/td>/.exec(html)?.[1];
    expect(cell(certificatePageHtml(certificate, "acme"))).toBe("No");
    const revoked = certificatePageHtml({ ...certificate, revokedAt: new Date("2026-11-24T09:30:00.000Z"), revocationReference: "PR-7K3M-Q9XD" }, "acme");
    expect(cell(revoked)).toBe('<time datetime="2026-11-24T09:30:00.000Z">2026-11-24 09:30:00 UTC</time> (request <code>PR-7K3M-Q9XD</code>): do not call or text this person on this consent');
  });

  it("shows TrustedForm's certificate URL and Jornaya's token as the form sent them, as text, and claims neither when none was sent (issue 44)", () => {
    const row = (html: string, label: string) => new RegExp(`<th scope="row">${label}</th><td>(.*?)</td>`).exec(html)?.[1];
    const withProof = certificatePageHtml({ ...certificate, trustedformCertUrl: "https://cert.trustedform.com/abc?x=1&y=<2>", leadidToken: "01234567-89AB-CDEF-0123-456789ABCDEF" }, "acme");
    expect(row(withProof, "TrustedForm certificate \\(as the form sent it\\)")).toBe("<code>https://cert.trustedform.com/abc?x=1&amp;y=&lt;2&gt;</code>");
    expect(row(withProof, "Jornaya LeadiD token \\(as the form sent it\\)")).toBe("<code>01234567-89AB-CDEF-0123-456789ABCDEF</code>");
    // Not a link: the value is whatever the visitor's browser sent.
    expect(withProof).not.toContain('href="https://cert.trustedform.com');
    for (const page of [html, certificatePageHtml({ ...certificate, trustedformCertUrl: null, leadidToken: null }, "acme")]) {
      expect(page).not.toContain("TrustedForm");
      expect(page).not.toContain("LeadiD");
    }
  });

  it("says a text of wording version 4 naming no buyer names only us (decision 039), not that the names were not recorded", () => {
    const alone = certificatePageHtml({ ...certificate, disclosureText: disclosureText(CONSENT_DISCLOSURE.parts), partnerNames: [], buyerIds: [] }, "acme");
    expect(alone).toContain("<p>None: the words name only QuoteRidge Media, LLC.</p>");
  });

  it("says what was not recorded (consent records made before certificates)", () => {
    const old = certificatePageHtml({ ...certificate, formOpenedAt: null, termsVersion: null, privacyVersion: null, firstName: null, lastName: null, zip: null }, "acme");
    expect(old.match(/not recorded/g)?.length).toBeGreaterThanOrEqual(5);
  });
});
