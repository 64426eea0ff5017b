/**
 * Buyers' caps and budgets, counted across replicas (migration 17, issue 33 item 5): one
 * buyer_counters row per buyer holds its current hour, day, week and month (in its time zone,
 * server/delivery/buyers.ts capPeriods) with the leads sold in each and the dollars reserved for
 * the day and the month. A sale takes a slot in every period at once with one conditional upsert
 * of that row: the row lock makes concurrent replicas queue, and the WHERE refuses the whole
 * reservation when any cap or budget would be passed, so no replica ever overshoots. A period
 * that has ended starts again at 0 in the same statement. A delivery the buyer refuses gives its
 * slot and dollars back (deliveries.cap_keys, cap_spend) if its periods are still current.
 */
import { sql, type RawBuilder } from "kysely";
import type { Builder } from "./database";

/** A buyer's current periods in its own time zone (server/delivery/buyers.ts capPeriods works them out). */
export interface CapPeriods {
  hour: string;
  day: string;
  week: string;
  month: string;
}

/** The most leads a buyer takes per period, as its settings say (server/delivery/buyers.ts). */
export type CapLimits = Partial<Record<keyof CapPeriods, number>>;
/** The most dollars a buyer spends per day and month, as its settings say. */
export type BudgetLimits = Partial<Record<"day" | "month", number>>;

/** One buyer's sale to count: its periods, the price reserved, and the limits in force. */
export interface CapReservation {
  buyerId: string;
  periods: CapPeriods;
  price: number;
  caps?: CapLimits | undefined;
  budget?: BudgetLimits | undefined;
}

/** What deliveries.cap_keys holds: the periods, "hour|day|week|month". */
export const capKeysOf = (periods: CapPeriods): string => `${periods.hour}|${periods.day}|${periods.week}|${periods.month}`;

const PERIODS = ["hour", "day", "week", "month"] as const;
const current = (period: (typeof PERIODS)[number], column: "count" | "spend") =>
  sql.raw(`(CASE WHEN c.${period}_key = excluded.${period}_key THEN c.${period}_${column} ELSE 0 END)`);

/** The condition a buyer's row must meet to take one more lead at `price`. */
function roomFor(reservation: CapReservation): RawBuilder<boolean> {
  const conditions: RawBuilder<unknown>[] = [];
  for (const period of PERIODS) {
    const cap = reservation.caps?.[period];
    if (cap !== undefined) conditions.push(sql`${current(period, "count")} < ${cap}::int`);
  }
  for (const period of ["day", "month"] as const) {
    const limit = reservation.budget?.[period];
    if (limit !== undefined) conditions.push(sql`${current(period, "spend")} + ${reservation.price}::numeric <= ${limit}::numeric`);
  }
  return conditions.length === 0 ? sql<boolean>`true` : sql<boolean>`(${sql.join(conditions, sql` AND `)})`;
}

/**
 * The upsert that reserves every sale in `reservations` (one per buyer) that has room, returning
 * the buyers that got theirs. `from`: a relation to join (the new lead's CTE, so nothing is
 * reserved when the lead was not stored), or none. Callers leave out a buyer whose cap is 0 or
 * whose budget is below the price (shutByLimits): a first row is inserted without the check.
 */
export function reserveCounters(reservations: readonly CapReservation[], from?: RawBuilder<unknown>): RawBuilder<{ buyerId: string }> {
  if (reservations.length === 0) return sql<{ buyerId: string }>`SELECT NULL::text AS buyer_id WHERE false`;
  // In buyer id order, so two statements reserving the same buyers lock their rows in the same
  // order and never deadlock (an auction's winners come in bid order, a lead's buyers in its plan's).
  const values = [...reservations].sort((a, b) => (a.buyerId < b.buyerId ? -1 : a.buyerId > b.buyerId ? 1 : 0)).map(
    (one) => sql`(${one.buyerId}::text, ${one.periods.hour}::text, ${one.periods.day}::text, ${one.periods.week}::text, ${one.periods.month}::text, ${one.price}::numeric)`,
  );
  const conditions = reservations.map((one) => sql`WHEN ${one.buyerId}::text THEN ${roomFor(one)}`);
  return sql<{ buyerId: string }>`
    INSERT INTO buyer_counters AS c (buyer_id, hour_key, hour_count, day_key, day_count, day_spend, week_key, week_count, month_key, month_count, month_spend)
    SELECT v.buyer_id, v.hour_key, 1, v.day_key, 1, v.price, v.week_key, 1, v.month_key, 1, v.price
    FROM ${from ? sql`${from}, ` : sql``}(VALUES ${sql.join(values)}) AS v (buyer_id, hour_key, day_key, week_key, month_key, price)
    ON CONFLICT (buyer_id) DO UPDATE SET
      hour_key = excluded.hour_key, hour_count = ${current("hour", "count")} + 1,
      day_key = excluded.day_key, day_count = ${current("day", "count")} + 1, day_spend = ${current("day", "spend")} + excluded.day_spend,
      week_key = excluded.week_key, week_count = ${current("week", "count")} + 1,
      month_key = excluded.month_key, month_count = ${current("month", "count")} + 1, month_spend = ${current("month", "spend")} + excluded.month_spend
    WHERE CASE c.buyer_id ${sql.join(conditions, sql` `)} ELSE false END
    RETURNING c.buyer_id`;
}

/**
 * The UPDATE that gives back refused deliveries' slots and dollars: `refused` selects (target,
 * cap_keys, n, spend) grouped per buyer and periods. A period that has ended since is left alone.
 * (Should one batch hold a buyer's refusals from two different hours, one group is given back
 * and the other stays counted: the counts err towards fewer leads, never more.)
 */
export function releaseCounters(refused: RawBuilder<unknown>): RawBuilder<unknown> {
  const back = (period: (typeof PERIODS)[number], index: number, column: "count" | "spend", amount: string) =>
    sql.raw(`CASE WHEN c.${period}_key = split_part(r.cap_keys, '|', ${index}) THEN greatest(c.${period}_${column} - r.${amount}, 0) ELSE c.${period}_${column} END`);
  return sql`
    UPDATE buyer_counters c SET
      hour_count = ${back("hour", 1, "count", "n")},
      day_count = ${back("day", 2, "count", "n")}, day_spend = ${back("day", 2, "spend", "spend")},
      week_count = ${back("week", 3, "count", "n")},
      month_count = ${back("month", 4, "count", "n")}, month_spend = ${back("month", 4, "spend", "spend")}
    FROM (${refused}) AS r (target, cap_keys, n, spend)
    WHERE c.buyer_id = r.target`;
}

/** A buyer's counts in its current periods (0 for a period that has moved on), for the console. */
export interface BuyerUsage {
  hour: number;
  day: number;
  week: number;
  month: number;
  daySpend: number;
  monthSpend: number;
}

/** The usage of each buyer at its own `periods` (what capPeriods gives for now). */
export async function buyerUsage(db: Builder, buyers: ReadonlyArray<{ id: string; periods: CapPeriods }>): Promise<Map<string, BuyerUsage>> {
  const usage = new Map<string, BuyerUsage>();
  if (buyers.length === 0) return usage;
  const rows = await db.selectFrom("buyerCounters").selectAll().where("buyerId", "in", buyers.map((buyer) => buyer.id)).execute();
  const byId = new Map(rows.map((row) => [row.buyerId, row]));
  for (const { id, periods } of buyers) {
    const row = byId.get(id);
    const at = (key: string | undefined, wanted: string, value: number | string | undefined) => (row && key === wanted ? Number(value) : 0);
    usage.set(id, {
      hour: at(row?.hourKey, periods.hour, row?.hourCount),
      day: at(row?.dayKey, periods.day, row?.dayCount),
      week: at(row?.weekKey, periods.week, row?.weekCount),
      month: at(row?.monthKey, periods.month, row?.monthCount),
      daySpend: at(row?.dayKey, periods.day, row?.daySpend),
      monthSpend: at(row?.monthKey, periods.month, row?.monthSpend),
    });
  }
  return usage;
}
