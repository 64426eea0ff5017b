/**
 * The buyers page (GET /buyers): per buyer of the live settings, its status, mode and price, every
 * cap and budget against this period's usage (the buyer's own hour, day, week and month, as the
 * counters count them), and over the last 30 days its acceptance rate, revenue (accepted, not
 * returned) and the deliveries dead-lettered or still waiting.
 */
import { sql } from "kysely";
import type { Database } from "../db/database";
import { buyerDay, buyerTimeZone, capPeriods, isLimited, isOpen, type Buyer, type LiveSettings } from "../delivery/buyers";
import { buyerUsage, type BuyerUsage } from "../db/buyer-counters";
import type { BuyerSummaryView, BuyersView, LimitUsageView } from "../../shared/admin-views";

const WINDOW_MS = 30 * 86_400_000;

interface Stats {
  accepted: number;
  rejected: number;
  revenue: number;
  failed: number;
  pending: number;
}

async function deliveryStats(db: Database, since: Date): Promise<Map<string, Stats>> {
  // One pass over the buyers' deliveries of the window: returned ones were accepted first.
  const rows = await db.builder
    .selectFrom("deliveries")
    .select([
      "target",
      sql<string>`count(*) FILTER (WHERE status IN ('accepted', 'returned'))`.as("accepted"),
      sql<string>`count(*) FILTER (WHERE status = 'rejected')`.as("rejected"),
      sql<string>`coalesce(sum(price) FILTER (WHERE status = 'accepted' AND sale), 0)`.as("revenue"),
      sql<string>`count(*) FILTER (WHERE status = 'failed')`.as("failed"),
      sql<string>`count(*) FILTER (WHERE status IN ('pending', 'sending'))`.as("pending"),
    ])
    .where("kind", "=", "buyer")
    .where("createdAt", ">=", since)
    .groupBy("target")
    .execute();
  return new Map(rows.map((row) => [row.target, { accepted: Number(row.accepted), rejected: Number(row.rejected), revenue: Number(row.revenue), failed: Number(row.failed), pending: Number(row.pending) }]));
}

/**
 * Leads an uncapped buyer got on its day: buyer_counters counts only buyers with a cap or budget
 * (it holds their slots), so for the others the day's deliveries not refused or dead-lettered are counted.
 */
async function uncappedToday(db: Database, buyerId: string, timeZone: string, day: string): Promise<number> {
  const row = await db.builder
    .selectFrom("deliveries")
    .select(sql<string>`count(*)`.as("n"))
    .where("kind", "=", "buyer")
    .where("target", "=", buyerId)
    .where("status", "not in", ["rejected", "failed"])
    .where(sql<boolean>`(created_at AT TIME ZONE ${timeZone})::date = ${day}::date`)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Every cap and budget the buyer has, against this period's usage (0 when nothing was counted yet). */
export function limitsOf(buyer: Pick<Buyer, "caps" | "budget">, usage: BuyerUsage | undefined): LimitUsageView[] {
  const limits: LimitUsageView[] = [];
  for (const period of ["hour", "day", "week", "month"] as const) {
    const cap = buyer.caps?.[period];
    if (cap !== undefined) limits.push({ period, unit: "leads", used: usage?.[period] ?? 0, limit: cap });
  }
  for (const period of ["day", "month"] as const) {
    const limit = buyer.budget?.[period];
    if (limit !== undefined) limits.push({ period, unit: "dollars", used: (period === "day" ? usage?.daySpend : usage?.monthSpend) ?? 0, limit });
  }
  return limits;
}

/** Archived buyers last (the page shows them apart); otherwise as stored. */
const byStatus = (buyer: Buyer) => (buyer.status === "archived" ? 1 : 0);

/**
 * `only`: the one buyer of its detail page (its summary computed the same way as the list's).
 */
export async function buyersView(db: Database, buyers: LiveSettings | undefined, now: Date = new Date(), only?: string): Promise<BuyersView> {
  if (!buyers) return { page: "buyers", buyers: [], configured: false };
  const listed = buyers.buyers.filter((buyer) => only === undefined || buyer.id === only).sort((a, b) => byStatus(a) - byStatus(b));
  const days = listed.map((buyer) => ({ buyer, day: buyerDay(buyer, now) }));
  const [stats, usage] = await Promise.all([
    deliveryStats(db, new Date(now.getTime() - WINDOW_MS)),
    buyerUsage(db.builder, listed.filter((buyer) => isLimited(buyer)).map((buyer) => ({ id: buyer.id, periods: capPeriods(buyer, now) }))),
  ]);
  const uncapped = await Promise.all(
    days.filter(({ buyer }) => !usage.has(buyer.id)).map(async ({ buyer, day }) => [buyer.id, await uncappedToday(db, buyer.id, buyerTimeZone(buyer), day)] as const),
  );
  const uncappedOf = new Map(uncapped);
  const summaries: BuyerSummaryView[] = days.map(({ buyer }) => {
    const s = stats.get(buyer.id) ?? { accepted: 0, rejected: 0, revenue: 0, failed: 0, pending: 0 };
    const answered = s.accepted + s.rejected;
    return {
      id: buyer.id,
      name: buyer.name,
      status: buyer.status,
      mode: buyer.mode,
      price: buyer.price,
      limits: limitsOf(buyer, usage.get(buyer.id)),
      today: usage.get(buyer.id)?.day ?? uncappedOf.get(buyer.id) ?? 0,
      dailyCap: buyer.caps?.day ?? null,
      acceptanceRate: answered === 0 ? null : s.accepted / answered,
      revenue30d: Math.round(s.revenue * 100) / 100,
      failed: s.failed,
      pending: s.pending,
      // Open means it takes leads now: a paused or archived buyer is closed whatever its schedule says (issue 42, item 8).
      open: buyer.status === "active" && isOpen(buyer, now),
    };
  });
  return { page: "buyers", buyers: summaries, configured: true };
}
