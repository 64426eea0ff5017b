/**
 * Third-party consent proof on the quote form (issue 44): TrustedForm's certify script and
 * Jornaya's LeadiD campaign script, each loaded only when switched on (TRUSTEDFORM, JORNAYA), and
 * only by the quote form (rapidfire.html): never by the landing page, `/`'s own document or the
 * legal pages. One place says what the form loads (GET /api/leads/session hands it the list; a
 * static file cannot carry a nonce, so nothing inline) and which origins its CSP must add for it
 * (server/security.ts), so the two cannot drift apart.
 */
import { LEADID_INPUT, TRUSTEDFORM_FIELD, type ProofScript } from "../../shared/lead/api";
import type { Config } from "../config";

export type ProofConfig = Pick<Config, "TRUSTEDFORM" | "TRUSTEDFORM_SCRIPT_URL" | "JORNAYA" | "JORNAYA_SCRIPT_URL">;

/**
 * The sources the providers' scripts need, per CSP directive (each an origin, or a host pattern).
 * Neither provider documents a frame, so frame-src stays 'self'.
 */
export interface ProofSources {
  script: readonly string[];
  connect: readonly string[];
  img: readonly string[];
}

/** The script element's id in Jornaya's snippet (its script may look itself up by it). */
export const LEADID_SCRIPT_ID = "LeadiDscript_campaign";
/** Ours: TrustedForm's snippet names its element nothing; the form needs an id to load it once. */
export const TRUSTEDFORM_SCRIPT_ID = "xxTrustedFormScript";

/**
 * TrustedForm's CSP guide ("Getting Started with Certifying Leads on Sites Using a Content
 * Security Policy", ActiveProspect support): the SDK loads from cdn.trustedform.com and talks to
 * api.trustedform.com, both needed in script-src, img-src and connect-src. Nothing framed.
 */
const TRUSTEDFORM_ORIGINS = ["https://api.trustedform.com", "https://cdn.trustedform.com"];
/**
 * Jornaya publishes no CSP list that we could find. Its snippet loads the campaign script from
 * create.lidstatic.com, and its own pixel and data calls go to create.leadid.com (the snippet's
 * noscript image): Jornaya's domain is allowed for scripts, requests and images. Nothing framed.
 */
const LEADID_ORIGINS = ["https://*.leadid.com"];

const isHostOf = (url: URL, domain: string) => url.hostname === domain || url.hostname.endsWith(`.${domain}`);

/**
 * What one response of GET /api/leads/session tells the form to load. TrustedForm's snippet adds
 * `field` (the hidden input's name), `use_tagged_consent=true` (its current snippet, which reads
 * the form's consent tags) and `l`, a new value per page load so no cache hands two visitors the
 * same script; the session is fetched once per load and never cached, so it is made here.
 */
export function proofScripts(config: ProofConfig, now = Date.now(), random = Math.random()): ProofScript[] {
  const scripts: ProofScript[] = [];
  if (config.TRUSTEDFORM === "on") {
    const src = new URL(config.TRUSTEDFORM_SCRIPT_URL);
    src.searchParams.set("field", TRUSTEDFORM_FIELD);
    src.searchParams.set("use_tagged_consent", "true");
    src.searchParams.set("l", `${now}${random}`);
    scripts.push({ src: src.href, id: TRUSTEDFORM_SCRIPT_ID });
  }
  if (config.JORNAYA === "on") scripts.push({ src: new URL(config.JORNAYA_SCRIPT_URL).href, id: LEADID_SCRIPT_ID, input: { ...LEADID_INPUT } });
  return scripts;
}

/**
 * The origins the quote form's CSP adds for the providers switched on (none when both are off).
 * The script's own origin always; the provider's documented ones only when the script is the
 * provider's own, so a sandbox or a local fake (tools/check-fakes.ts) adds nothing else.
 */
export function proofSources(config: ProofConfig): ProofSources {
  const script = new Set<string>();
  const requests = new Set<string>();
  const add = (scriptUrl: string, provider: { domain: string; origins: readonly string[] }) => {
    const url = new URL(scriptUrl);
    const origins = [url.origin, ...(isHostOf(url, provider.domain) ? provider.origins : [])];
    for (const origin of origins) {
      script.add(origin);
      requests.add(origin);
    }
  };
  if (config.TRUSTEDFORM === "on") add(config.TRUSTEDFORM_SCRIPT_URL, { domain: "trustedform.com", origins: TRUSTEDFORM_ORIGINS });
  if (config.JORNAYA === "on") add(config.JORNAYA_SCRIPT_URL, { domain: "lidstatic.com", origins: LEADID_ORIGINS });
  return { script: [...script], connect: [...requests], img: [...requests] };
}
