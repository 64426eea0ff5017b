/** The quote form's calls to its server (all same-origin JSON; see server/api/leads.ts). */
import { paths, CSRF_HEADER } from "../../shared/routes";
import type { FunnelEvent } from "../../shared/funnel-events";
import type { LeadMatchesResponse, LeadSubmitResponse, ProofScript, SessionExperiments } from "../../shared/lead/api";
import type { Campaign } from "../../shared/campaign";
import type { ShownDisclosure } from "../../shared/consent-disclosure";
import type { DisclosureAnswers } from "../../shared/lead/disclosure-answers";
import type { ZipLocation } from "./types";

export interface Session {
  csrfToken: string;
  formToken: string;
  /**
   * The words naming only us, before the visitor's answers are known. The form never sends their
   * version: the words it sends under are the ones asked for the answers (fetchDisclosure).
   */
  disclosure: ShownDisclosure;
  /** The consent-proof providers' scripts to load (proof-scripts.ts); absent when none is on. */
  proofScripts?: ProofScript[];
  /** The form's A/B variant for this visitor (variants.ts); absent when no experiment changes the form for them. */
  experiments?: SessionExperiments;
}

async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/**
 * GET /api/leads/session. The form's source and click ids go along: an experiment may run for some
 * sources only, and its exposure is counted with them (the visit id is not needed there).
 */
export async function openSession(campaign: Campaign = {}): Promise<Session> {
  const query = new URLSearchParams();
  if (campaign.sid) query.set("sid", campaign.sid);
  if (campaign.tid) query.set("tid", campaign.tid);
  const search = query.toString();
  const response = await fetch(search ? `${paths.leadsSession}?${search}` : paths.leadsSession, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) throw new Error(`session: HTTP ${response.status}`);
  return json<Session>(response);
}

/**
 * The consent words for these answers (POST /api/leads/disclosure): the buyers that could take
 * the request, with us. Throws when the server cannot answer them (unreachable, or the answers refused).
 */
export async function fetchDisclosure(session: Session, body: DisclosureAnswers): Promise<ShownDisclosure> {
  const response = await fetch(paths.leadsDisclosure, {
    method: "POST",
    credentials: "same-origin",
    cache: "no-store",
    headers: { "content-type": "application/json", [CSRF_HEADER]: session.csrfToken },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`disclosure: HTTP ${response.status}`);
  return json<ShownDisclosure>(response);
}

/** The ZIP's city and state; null when the ZIP does not exist. Throws when the server cannot be reached. */
export async function lookUpZip(zip: string): Promise<ZipLocation | null> {
  const response = await fetch(`${paths.zipCodesApi}/${encodeURIComponent(zip)}`, { credentials: "same-origin" });
  if (response.status === 404 || response.status === 400) return null;
  if (!response.ok) throw new Error(`zip lookup: HTTP ${response.status}`);
  return json<ZipLocation>(response);
}

/** The catalog's models for a year and make (empty when it has none); throws when the server cannot be reached. */
export async function listModels(year: string, make: string): Promise<string[]> {
  const query = new URLSearchParams({ year, make });
  const response = await fetch(`${paths.vehicleModelsApi}?${query.toString()}`, { credentials: "same-origin" });
  if (response.status === 422 || response.status === 404) return [];
  if (!response.ok) throw new Error(`model list: HTTP ${response.status}`);
  const { models } = await json<{ models: string[] }>(response);
  return Array.isArray(models) ? models.filter((model): model is string => typeof model === "string") : [];
}

/**
 * The server could not store the request just now (503: its database is restarting or failing
 * over) and asks for the same request again later; submit.ts does so with the same idempotency key.
 */
export class TryAgainLater extends Error {
  /** How long the server asked to wait (Retry-After), in milliseconds; undefined when it did not say. */
  readonly retryAfterMs: number | undefined;

  constructor(retryAfterMs: number | undefined) {
    super("The server asked to try again later");
    this.name = "TryAgainLater";
    this.retryAfterMs = retryAfterMs;
  }
}

/** Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP date, in milliseconds from `now`. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  const value = header?.trim() ?? "";
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = /^[A-Za-z]{3}, /.test(value) ? Date.parse(value) : Number.NaN; // "Mon, 23 Nov 2026 12:00:05 GMT"
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * What the form makes of POST /api/leads's answer: the server's, or a 409 refusal of the consent
 * words' version (they changed since they were shown: the form asks for the new ones).
 */
export type SubmitReply = LeadSubmitResponse | { status: "stale_disclosure"; error: string };

/** Throws TryAgainLater on a 503, and fetch's own error when the server cannot be reached. */
export async function submitLead(session: Session, body: Record<string, unknown>): Promise<SubmitReply> {
  const response = await fetch(paths.leadsApi, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", [CSRF_HEADER]: session.csrfToken },
    body: JSON.stringify(body),
  });
  if (response.status === 503) throw new TryAgainLater(retryAfterMs(response.headers.get("retry-after")));
  if (response.headers.get("content-type")?.includes("application/json")) {
    const reply = await json<LeadSubmitResponse | { error?: string }>(response);
    // A refusal of 409 is the stale words (the other 409, already_sent, is not an error).
    if (response.status === 409 && "status" in reply && reply.status === "error") return { status: "stale_disclosure", error: reply.error };
    if ("status" in reply) return reply;
    return { status: "error", error: reply.error ?? "Something went wrong. Please try again." };
  }
  return { status: "error", error: "Something went wrong on our side. Please try again in a moment." };
}

/** Funnel events are best effort: a lost one must never disturb the visitor. */
export function sendEvent(event: FunnelEvent): void {
  void fetch(paths.eventsApi, {
    method: "POST",
    credentials: "same-origin",
    keepalive: true,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(event),
  }).catch(() => {});
}

/** What GET /api/vehicles/vin/:vin decodes from a VIN (model null when the catalog lacks it). */
export interface DecodedVin {
  vin: string;
  year: number;
  make: string;
  /** Absent when the catalog has the maker but not the model. */
  model?: string | null;
}

/** The year, make and model of a VIN; null when the catalog cannot decode it. Throws when the server cannot be reached. */
export async function decodeVin(vin: string): Promise<DecodedVin | null> {
  const response = await fetch(`${paths.vehicleVinApi}/${encodeURIComponent(vin)}`, { credentials: "same-origin" });
  if (response.status === 404 || response.status === 422) return null;
  if (!response.ok) throw new Error(`VIN lookup: HTTP ${response.status}`);
  return json<DecodedVin>(response);
}

/** Who accepted the lead so far (GET /api/leads/:reference/matches); throws when the server cannot say. */
export async function fetchMatches(reference: string, token: string): Promise<LeadMatchesResponse> {
  const response = await fetch(`${paths.leadsApi}/${encodeURIComponent(reference)}/matches?${new URLSearchParams({ token }).toString()}`, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) throw new Error(`matches: HTTP ${response.status}`);
  return json<LeadMatchesResponse>(response);
}
