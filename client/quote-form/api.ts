/** The quote form's calls to its server (all same-origin JSON; see server/api/leads.ts). */
import { paths, CSRF_HEADER } from "../../shared/routes";
import type { FunnelEvent } from "../../shared/funnel-events";
import type { LeadSubmitResponse } from "../../shared/lead/api";
import type { ZipLocation } from "./types";

export interface Session {
  csrfToken: string;
  formToken: string;
}

async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

export async function openSession(): Promise<Session> {
  const response = await fetch(paths.leadsSession, { credentials: "same-origin", cache: "no-store" });
  if (!response.ok) throw new Error(`session: HTTP ${response.status}`);
  return json<Session>(response);
}

/** The ZIP's city and state; null when the ZIP does not exist. Throws when the server cannot be reached. */
export async function lookUpZip(zip: string): Promise<ZipLocation | null> {
  const response = await fetch(`${paths.zipCodesApi}/${encodeURIComponent(zip)}`, { credentials: "same-origin" });
  if (response.status === 404 || response.status === 400) return null;
  if (!response.ok) throw new Error(`zip lookup: HTTP ${response.status}`);
  return json<ZipLocation>(response);
}

export async function submitLead(session: Session, body: Record<string, unknown>): Promise<LeadSubmitResponse> {
  const response = await fetch(paths.leadsApi, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", [CSRF_HEADER]: session.csrfToken },
    body: JSON.stringify(body),
  });
  if (response.headers.get("content-type")?.includes("application/json")) {
    const reply = await json<LeadSubmitResponse | { error?: string }>(response);
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
