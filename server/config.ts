/**
 * The environment, parsed once at start-up. A bad value stops the process with a message that
 * names the variable, instead of surfacing later as a confusing runtime error.
 */
import { z } from "zod";
import { parseAllowList, type OutboundAllowList } from "./delivery/outbound";

/** LOG_BUFFER_BYTES's default: how far stdout's reader may fall behind before log lines are dropped (server/logger.ts). */
export const LOG_BUFFER_MAX_BYTES = 8 * 1024 * 1024;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const milliseconds = (fallback: number) => z.coerce.number().int().min(0).max(600_000).default(fallback);

/**
 * TRUST_PROXY mirrors Express's "trust proxy" setting, restricted to the safe forms:
 * "false"/"0" (no proxy), a hop count ("1" = one load balancer in front), or a comma list of
 * addresses, CIDR ranges and Express's names (loopback, linklocal, uniquelocal).
 * "true" (trust every hop) is refused: it lets any client spoof its address.
 */
const trustProxySchema = z
  .string()
  .trim()
  .default("false")
  .transform((value, ctx): false | number | string[] => {
    if (value === "" || value === "false" || value === "0") return false;
    if (/^\d+$/.test(value)) return Number(value);
    if (value === "true") {
      ctx.addIssue({ code: "custom", message: 'use a hop count (e.g. "1") or the balancer\'s addresses instead of "true"' });
      return z.NEVER;
    }
    const entries = value.split(",").map((entry) => entry.trim()).filter(Boolean);
    const valid = /^(loopback|linklocal|uniquelocal|[0-9a-fA-F.:]+(\/\d{1,3})?)$/;
    const bad = entries.filter((entry) => !valid.test(entry));
    if (bad.length > 0) {
      ctx.addIssue({ code: "custom", message: `not an address, CIDR range or preset: ${bad.join(", ")}` });
      return z.NEVER;
    }
    return entries;
  });

/** OUTBOUND_ALLOW: the hosts and ranges inside our network that leads may still go to (server/delivery/outbound.ts). */
const outboundAllowSchema = z
  .string()
  .default("")
  .transform((value, ctx): OutboundAllowList => {
    const parsed = parseAllowList(value);
    if ("problems" in parsed) {
      for (const problem of parsed.problems) ctx.addIssue({ code: "custom", message: problem });
      return z.NEVER;
    }
    return parsed.allow;
  });

export const configSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  HOST: z.string().min(1).default("0.0.0.0"),
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  /** How far stdout's reader may fall behind before log lines are dropped (server/logger.ts). */
  LOG_BUFFER_BYTES: z.coerce.number().int().min(65_536).max(1_073_741_824).default(LOG_BUFFER_MAX_BYTES),
  TRUST_PROXY: trustProxySchema,
  /** Absolute origin used for canonical links, e.g. https://www.quoteridge.com. */
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .transform((url) => url.replace(/\/+$/, ""))
    .optional(),
  /** Node's keep-alive must outlive the load balancer's idle timeout (60 s on most). */
  KEEP_ALIVE_TIMEOUT_MS: milliseconds(65_000),
  /**
   * From a request's first byte to the end of its headers. A browser or a balancer sends them in
   * one go; a client that trickles them is a slowloris. Counted per request, not while a
   * keep-alive socket waits idle for the next one (that is KEEP_ALIVE_TIMEOUT_MS), so it need not
   * exceed the keep-alive; at most REQUEST_TIMEOUT_MS, which covers the headers too.
   */
  HEADERS_TIMEOUT_MS: milliseconds(10_000),
  /** From a request's first byte to the end of its body: a quote request is 2 KB, so 30 s is ample even on a poor phone link. */
  REQUEST_TIMEOUT_MS: milliseconds(30_000),
  /** How long an SSR render may take before it is aborted. */
  RENDER_TIMEOUT_MS: milliseconds(10_000),
  /** Rendered pages kept in memory (0 turns the cache off), and for how long. */
  PAGE_CACHE_MAX_ENTRIES: z.coerce.number().int().min(0).max(100_000).default(500),
  PAGE_CACHE_TTL_MS: milliseconds(60_000),
  /** PostgreSQL, the database of record; unset = the embedded store under DATA_DIR. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /** PostgreSQL only: the delivery worker's and the auction's own connections, so a burst of background work never queues a visitor's request. */
  DATABASE_BACKGROUND_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  DATA_DIR: z.string().min(1).default("data"),
  /** Signs CSRF tokens; must be the same on every replica. Unset: a random one per process. */
  CSRF_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** Signs consent certificate links (server/consent/certificate.ts); unset: derived from CSRF_SECRET. */
  CERTIFICATE_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** Privacy-request submissions allowed per client (IP) per 10 minutes. */
  PRIVACY_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(10),
  /** Quote requests (POST /api/leads) per client per 10 minutes. */
  LEAD_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(20),
  /** Funnel events (POST /api/events) per client per 10 minutes: a visitor sends about five. */
  EVENTS_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(200),
  /** A quote form sent sooner than this after it opened is a bot's (no person fills three steps that fast). */
  LEAD_MIN_FILL_MS: milliseconds(4_000),
  /** A buyers file imported at start-up when the database has no buyer nor source yet (docs/lead-delivery.md); the console runs them after. */
  BUYERS_FILE: z.string().min(1).optional(),
  /**
   * Exceptions to the production rule that leads, pings, webhooks and postbacks go only to
   * https:// addresses of public hosts: host names, addresses and CIDR ranges (a buyer stub, a
   * partner on a private network). Off by default; logged at start-up when set.
   */
  OUTBOUND_ALLOW: outboundAllowSchema,
  /**
   * Third-party consent proof and phone checks (issue 44, docs/lead-checks.md). All off by default:
   * the form loads no provider's script and no check runs until a provider is switched on here AND
   * a buyer's requirements ask for its check. Every API base and script address can point at a
   * sandbox or a local fake (tools/check-fakes.ts).
   */
  /** "on": the quote form loads TrustedForm's script and the certificate URL travels with the lead. */
  TRUSTEDFORM: z.enum(["on", "off"]).default("off"),
  /** The script the quote form loads when TRUSTEDFORM is on; the form's CSP adds its origin (and TrustedForm's documented two when it is TrustedForm's own: server/consent/proof-scripts.ts). */
  TRUSTEDFORM_SCRIPT_URL: z.url({ protocol: /^https?$/ }).default("https://api.trustedform.com/trustedform.js"),
  /** The only origin a certificate URL may have: the server never calls a visitor's URL on any other host with our key. */
  TRUSTEDFORM_CERT_ORIGIN: z.url({ protocol: /^https?$/ }).transform((url) => new URL(url).origin).default("https://cert.trustedform.com"),
  /** The account's API key: with it, a certificate is retained (v4 API) before a lead goes to a buyer that requires it. */
  TRUSTEDFORM_API_KEY: z.string().min(1).optional(),
  /** "on": the quote form loads Jornaya's LeadiD campaign script and its token travels with the lead. */
  JORNAYA: z.enum(["on", "off"]).default("off"),
  /** The LeadiD campaign script (from Jornaya's snippet for the campaign); required when JORNAYA is on. */
  JORNAYA_SCRIPT_URL: z.url({ protocol: /^https?$/ }).default("https://create.lidstatic.com/campaign/00000000-0000-0000-0000-000000000000.js?snippet_version=2"),
  /** LeadiD's API base, for Authenticate. */
  JORNAYA_API_URL: z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, "")).default("https://api.leadid.com"),
  /** The account code (lac) Authenticate needs: without it, no token can be authenticated. */
  JORNAYA_ACCOUNT_CODE: z.string().min(1).optional(),
  /** The TCPA Litigator List API (litigator and federal/state DNC scrubs). */
  LITIGATOR_API_URL: z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, "")).default("https://api.tcpalitigatorlist.com"),
  LITIGATOR_API_USER: z.string().min(1).optional(),
  LITIGATOR_API_KEY: z.string().min(1).optional(),
  /** Twilio Lookup v2 (line type intelligence). */
  TWILIO_LOOKUP_URL: z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, "")).default("https://lookups.twilio.com"),
  TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  /** Each check's own time limit, in ms: past it the check is "unavailable" and the buyers that require it are skipped (or wait). */
  CHECK_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(2_000),
  /**
   * Days a phone's scrub and line-type answers are reused for a later lead with the same phone (0:
   * never). At most 31: a DNC scrub older than that is not one the FTC's rule accepts (16 CFR
   * 310.4(b)(3)(iv): a registry version obtained at most 31 days before the call).
   */
  CHECK_CACHE_DAYS: z.coerce.number().int().min(0).max(31).default(7),
  /** How often each replica checks whether the business settings changed (a change through its own console applies at once). */
  SETTINGS_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
  /** Deliveries each replica sends at once (each waits for its buyer's answer). */
  DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(64),
  /** How often an idle delivery worker looks for due deliveries (a lead stored by its own replica wakes it at once). */
  DELIVERY_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(250),
  /** The ping/post auction's whole ping round, in ms: answers after it count as no bid (server/auction/). */
  AUCTION_DEADLINE_MS: z.coerce.number().int().min(50).max(10_000).default(750),
  /**
   * How much nicer than the server the background worker process runs (0-19, added to the
   * server's own niceness, at most 19; higher yields the CPU sooner): the auction and the delivery
   * worker give way to the process answering visitors (decision 034).
   */
  BACKGROUND_NICENESS: z.coerce.number().int().min(0).max(19).default(10),
  /** The operations console's own listener (never the public port): 127.0.0.1 keeps it off the network. */
  ADMIN_HOST: z.string().min(1).default("127.0.0.1"),
  /** The console's port; "off" runs no console on this replica. */
  ADMIN_PORT: z
    .union([z.literal("off"), z.coerce.number().int().min(0).max(65_535)])
    .default(3001),
  /** How long a console sign-in lasts without activity, in hours. */
  ADMIN_SESSION_HOURS: z.coerce.number().int().min(1).max(720).default(12),
  /** The analysts' day: report days and the daily rollup use this IANA time zone. */
  REPORT_TIME_ZONE: z
    .string()
    .default("America/New_York")
    .refine((zone) => {
      try {
        new Intl.DateTimeFormat("en-US", { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    }, "must be an IANA time zone, like America/New_York or UTC"),
  /** Whether funnel events are stored for the report ("off": logged only, as before the event store). */
  ANALYTICS_EVENTS: z.enum(["on", "off"]).default("on"),
  /** Funnel events held in memory before they are written; past this, new events are dropped (and counted). */
  ANALYTICS_BUFFER_MAX: z.coerce.number().int().min(100).max(1_000_000).default(20_000),
  /** How often buffered funnel events are written (also as soon as a batch fills). */
  ANALYTICS_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  /** Stored funnel events older than this many days are deleted (13 months by default). */
  ANALYTICS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(396),
  /** After SIGTERM: how long to keep serving (readiness failing) so the balancer stops routing. */
  SHUTDOWN_DELAY_MS: milliseconds(0),
  /** After the delay: how long in-flight requests get to finish before sockets are destroyed. */
  SHUTDOWN_TIMEOUT_MS: milliseconds(10_000),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((line) => `  - ${line}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Parses the environment; throws ConfigError listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join(".") || "environment"}: ${issue.message}`),
    );
  }
  if (parsed.data.HEADERS_TIMEOUT_MS > parsed.data.REQUEST_TIMEOUT_MS) {
    throw new ConfigError([`HEADERS_TIMEOUT_MS: at most REQUEST_TIMEOUT_MS (${parsed.data.REQUEST_TIMEOUT_MS}), which covers the headers too`]);
  }
  // The LeadiD script is per campaign: the placeholder default would load no campaign of ours.
  if (parsed.data.JORNAYA === "on" && !env.JORNAYA_SCRIPT_URL) {
    throw new ConfigError(["JORNAYA_SCRIPT_URL: required when JORNAYA is on: the campaign script of Jornaya's snippet, like https://create.lidstatic.com/campaign/<campaign id>.js?snippet_version=2"]);
  }
  // Buyers get consent certificate links that must work for years: never a key random per process.
  if (parsed.data.BUYERS_FILE && !parsed.data.CERTIFICATE_SECRET && !parsed.data.CSRF_SECRET) {
    throw new ConfigError(["CERTIFICATE_SECRET: required when BUYERS_FILE is set (or set CSRF_SECRET), so consent certificate links keep working"]);
  }
  return parsed.data;
}
