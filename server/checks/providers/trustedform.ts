/**
 * TrustedForm (ActiveProspect), Certificate API v4.0 (docs/lead-checks.md, "Providers"): one
 * POST to the lead's certificate URL retains the certificate in our account and matches the lead's
 * email and phone against what the certificate recorded.
 *
 * The certificate URL comes from the visitor's browser, so it is the one address in this code base
 * that a stranger chooses, and the request carries our API key. ActiveProspect's own instruction is
 * never to send a request unless the URL is on cert.trustedform.com; we go further: the origin must
 * equal TRUSTEDFORM_CERT_ORIGIN exactly and the path be one certificate id (40 lowercase hex), with
 * no query, fragment or credentials. Anything else is refused before a byte is sent.
 */
import { z } from "zod";
import { site } from "../../../shared/site";
import type { CheckAnswer, CheckInput, CheckProvider } from "../types";
import { basicAuth, exchange, failed, malformed, neverThrows, notAnAnswer, ok, providerText, readJson, unavailable, unexpectedStatus } from "./exchange";

export const TRUSTEDFORM_PROVIDER = "trustedform";

const CERT_PATH = /^\/[0-9a-f]{40}$/;

export type CertUrlCheck = { ok: true; url: string } | { ok: false; outcome: "foreign_host" | "bad_shape"; detail: string };

/** Whether a certificate URL from the form may be called with our key (see the module comment). */
export function checkCertUrl(text: string | null, certOrigin: string): CertUrlCheck {
  if (text === null || text === "") return { ok: false, outcome: "bad_shape", detail: "no certificate URL came with the lead" };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, outcome: "bad_shape", detail: "the certificate URL is not a URL" };
  }
  // The origin first: a look-alike ("https://cert.trustedform.com.evil.example/…",
  // "https://cert.trustedform.com@evil.example/…") must be named for what it is.
  if (url.origin !== certOrigin) return { ok: false, outcome: "foreign_host", detail: `the certificate URL is not on ${certOrigin}` };
  if (url.username !== "" || url.password !== "") return { ok: false, outcome: "bad_shape", detail: "the certificate URL carries credentials" };
  // The text itself must be the origin and one path, nothing else: a bare "?" or "#" parses to an
  // empty search or hash, and a parser normalizes "/x/../" and leading spaces away.
  if (!CERT_PATH.test(url.pathname) || text !== `${certOrigin}${url.pathname}`) {
    return { ok: false, outcome: "bad_shape", detail: "the certificate URL is not one certificate id (40 lowercase hex, no query or fragment)" };
  }
  return { ok: true, url: url.href };
}

/** The v4 answer, as much of it as we read: `outcome` decides, `match_lead` and `retain` explain. */
const certificateAnswer = z.object({
  outcome: z.enum(["success", "failure", "error"]),
  reason: z.string().nullish(),
  match_lead: z
    .object({
      result: z
        .object({
          success: z.boolean().nullish(),
          email_match: z.boolean().nullish(),
          phone_match: z.boolean().nullish(),
        })
        .nullish(),
    })
    .nullish(),
  retain: z
    .object({
      results: z
        .object({
          expires_at: z.string().max(64).nullish(),
          previously_retained: z.union([z.boolean(), z.enum(["true", "false"])]).nullish(),
        })
        .nullish(),
    })
    .nullish(),
});

/** A 4xx body may carry `outcome` and `reason` too; only the reason is read. */
const refusalBody = z.object({ reason: z.string().nullish() });

export interface TrustedFormSettings {
  apiKey: string;
  /** TRUSTEDFORM_CERT_ORIGIN, already an origin (server/config.ts). */
  certOrigin: string;
}

export function trustedFormProvider(settings: TrustedFormSettings): CheckProvider {
  return {
    kind: "trustedform",
    name: TRUSTEDFORM_PROVIDER,
    // match_lead sends the email and the phone, which a ping never carries.
    stage: "post",
    cachedByPhone: false,
    run: (input, timeoutMs) => neverThrows(() => retain(settings, input, timeoutMs)),
  };
}

async function retain(settings: TrustedFormSettings, input: CheckInput, timeoutMs: number): Promise<CheckAnswer> {
  const cert = checkCertUrl(input.trustedFormCertUrl, settings.certOrigin);
  if (!cert.ok) return failed(cert.outcome, cert.detail);
  // The v4 API refuses retain without match_lead, and match_lead needs an email or a phone.
  const matchLead: { email?: string; phone?: string } = {};
  if (input.email) matchLead.email = input.email;
  if (input.phone) matchLead.phone = input.phone;
  if (!matchLead.email && !matchLead.phone) return failed("no_contact", "no email or phone to match the certificate against");

  const result = await exchange(
    TRUSTEDFORM_PROVIDER,
    cert.url,
    {
      method: "POST",
      headers: {
        authorization: basicAuth("API", settings.apiKey),
        "api-version": "4.0",
        accept: "application/json",
        "content-type": "application/json",
      },
      body: JSON.stringify({ match_lead: matchLead, retain: { reference: input.reference, vendor: site.productName } }),
    },
    timeoutMs,
  );
  const none = notAnAnswer(result);
  if (none) return none;
  const status = result.httpStatus ?? 0;
  const reason = () => {
    const text = readJson(result.body, refusalBody)?.reason;
    return text ? `: ${providerText(text)}` : "";
  };
  // ActiveProspect answers a certificate past its retention window (72 hours, 90 days once a form
  // was submitted) or one that never existed with 404/410: the lead's certificate, not our request.
  if (status === 410) return failed("expired", `HTTP 410, the certificate has expired${reason()}`, result.latencyMs);
  if (status === 404) return failed("not_found", `HTTP 404, no such certificate (or expired)${reason()}`, result.latencyMs);
  if (status < 200 || status >= 300) return status >= 400 && status < 500 ? unavailable("refused_request", `HTTP ${status}${reason()}`, result.latencyMs) : unexpectedStatus(result);

  const body = readJson(result.body, certificateAnswer);
  if (!body) return malformed(result, "a TrustedForm v4 answer");
  const why = body.reason ? providerText(body.reason) : "";
  if (body.outcome === "error") return unavailable("provider_error", why || "outcome error", result.latencyMs);
  if (body.outcome === "failure") {
    if (body.match_lead?.result?.success === false) return failed("no_match", "the lead's email and phone are not the ones the certificate recorded", result.latencyMs);
    if (/expire/i.test(why)) return failed("expired", why, result.latencyMs);
    if (/not (be )?found/i.test(why)) return failed("not_found", why, result.latencyMs);
    return failed("not_retained", why || "outcome failure", result.latencyMs);
  }
  // "success" without a retain result would be a certificate we do not hold: not an answer we can use.
  const retained = body.retain?.results;
  if (!retained) return malformed(result, "a retain result");
  const again = retained.previously_retained === true || retained.previously_retained === "true";
  // Only the date: a timestamp is no one's personal data, but the excerpt's phone mask would eat it.
  const day = retained.expires_at?.match(/^(\d{4}-\d{2}-\d{2})T/)?.[1];
  const until = day ? `, kept until ${day}` : "";
  return ok("retained", `${again ? "already retained" : "retained"}${until}`, result.latencyMs);
}
