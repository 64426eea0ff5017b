/** The journey page (GET /journey?tid=…): one click's events in order. */
import type { Database } from "../db/database";
import type { JourneyView } from "../../shared/admin-views";
import { campaignIdSchema } from "../../shared/campaign";
import type { AdminReports } from "./reports";

export async function journeyView(db: Database, reports: AdminReports, raw: unknown): Promise<JourneyView> {
  if (raw === undefined || raw === "") return { page: "journey", events: [] };
  const tid = typeof raw === "string" ? raw.trim() : undefined;
  if (tid === undefined || !campaignIdSchema.safeParse(tid).success) {
    return { page: "journey", events: [], error: "A click id (tid) is letters, digits and - _ . ~, at most 64 characters." };
  }
  const events = await reports.journey(db, tid);
  return { page: "journey", tid, events, ...(events.length === 0 ? { error: `No events with the click id ${tid}.` } : {}) };
}
