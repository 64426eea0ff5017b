/**
 * The privacy requests queue (GET /privacy-requests): open requests by legal deadline, the
 * earliest first, overdue ones flagged; then the ones closed in the last 30 days.
 */
import type { Database } from "../db/database";
import { privacyRequestRepository, type PrivacyRequestRecord } from "../db/privacy-requests";
import type { PrivacyRequestView, PrivacyView } from "../../shared/admin-views";

const DAY_MS = 86_400_000;
const RECENT_CLOSED_DAYS = 30;
const RECENT_CLOSED_MAX = 100;

export function privacyRequestView(record: PrivacyRequestRecord, now: Date): PrivacyRequestView {
  const open = record.status === "received";
  const remaining = record.dueAt.getTime() - now.getTime();
  return {
    reference: record.reference,
    type: record.requestType,
    status: record.status,
    receivedAt: record.receivedAt.toISOString(),
    dueAt: record.dueAt.toISOString(),
    overdue: open && remaining < 0,
    // Rounded toward the deadline: due in 3.4 days is 3 days left; 0.2 days late is overdue by 1.
    daysLeft: remaining >= 0 ? Math.floor(remaining / DAY_MS) : -Math.ceil(-remaining / DAY_MS),
    state: record.state,
    gpc: record.gpc,
    closedAt: record.closedAt?.toISOString() ?? null,
    note: record.resolutionNote,
  };
}

export async function privacyView(db: Database, now: Date = new Date()): Promise<PrivacyView> {
  const repository = privacyRequestRepository(db);
  const open = await repository.list({ status: "received" });
  open.sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime() || a.receivedAt.getTime() - b.receivedAt.getTime());
  const closedRows = await db.builder
    .selectFrom("privacyRequests")
    .select("reference")
    .where("status", "<>", "received")
    .where("closedAt", ">=", new Date(now.getTime() - RECENT_CLOSED_DAYS * DAY_MS))
    .orderBy("closedAt", "desc")
    .limit(RECENT_CLOSED_MAX)
    .execute();
  const closed = (await Promise.all(closedRows.map((row) => repository.findByReference(row.reference)))).filter((row) => row !== undefined);
  return { page: "privacy", requests: [...open, ...closed].map((record) => privacyRequestView(record, now)) };
}
