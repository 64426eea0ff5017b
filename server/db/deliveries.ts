/**
 * The deliveries, delivery_attempts and buyer_daily_counts tables: the one place that reads and
 * writes them (the lead's transaction schedules, the worker claims and records, the ops command
 * and the returns API report and reverse).
 */
import { sql, type Transaction } from "kysely";
import type { Builder, Database } from "./database";
import type { AttemptOutcome, DeliveryStatus, Tables } from "./schema";

export interface NewDelivery {
  kind: "buyer" | "postback";
  target: string;
  idempotencyKey: string;
  sale: boolean;
  price: number | null;
  url: string | null;
  /** The buyer's day whose cap slot this delivery took (reserveDailySlot), to give back if it is refused. */
  capDay: string | null;
  /** When the first try is due (now, unless a schedule says later). */
  dueAt?: Date;
}

export interface DeliveryRecord {
  id: string;
  /** Null once the lead is purged. */
  leadId: string | null;
  leadReference: string;
  kind: "buyer" | "postback";
  target: string;
  idempotencyKey: string;
  status: DeliveryStatus;
  sale: boolean;
  price: number | null;
  url: string | null;
  capDay: string | null;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  reason: string | null;
  createdAt: Date;
  completedAt: Date | null;
  returnedAt: Date | null;
}

export interface AttemptRecord {
  attemptedAt: Date;
  httpStatus: number | null;
  latencyMs: number;
  outcome: AttemptOutcome;
  excerpt: string | null;
}

export interface Attempt extends AttemptRecord {
  deliveryId: string;
}

const COLUMNS = [
  "id",
  "leadId",
  "leadReference",
  "kind",
  "target",
  "idempotencyKey",
  "status",
  "sale",
  "price",
  "url",
  "capDay",
  "attempts",
  "nextAttemptAt",
  "lastError",
  "reason",
  "createdAt",
  "completedAt",
  "returnedAt",
] as const;

type Row = Awaited<ReturnType<ReturnType<typeof selectDeliveries>["executeTakeFirstOrThrow"]>>;

function selectDeliveries(db: Builder | Transaction<Tables>) {
  return db.selectFrom("deliveries").select(COLUMNS);
}

function fromRow(row: Row): DeliveryRecord {
  return { ...row, id: String(row.id), leadId: row.leadId === null ? null : String(row.leadId), price: row.price === null ? null : Number(row.price) };
}

/**
 * Takes one of the buyer's leads for the day if its cap allows, atomically across replicas:
 * the row's count only grows while below the cap. false: the cap is reached.
 */
export async function reserveDailySlot(tx: Transaction<Tables>, buyerId: string, day: string, cap: number | undefined): Promise<boolean> {
  if (cap === undefined) return true;
  if (cap <= 0) return false;
  const row = await tx
    .insertInto("buyerDailyCounts")
    .values({ buyerId, day, count: 1 })
    .onConflict((conflict) => conflict.columns(["buyerId", "day"]).doUpdateSet({ count: sql`buyer_daily_counts.count + 1` }).where("buyerDailyCounts.count", "<", cap))
    .returning("count")
    .executeTakeFirst();
  return row !== undefined;
}

/** Gives a reserved slot back (a delivery that was rejected or failed does not count against the cap). */
async function releaseDailySlot(tx: Transaction<Tables>, buyerId: string, day: string): Promise<void> {
  await tx.updateTable("buyerDailyCounts").set({ count: sql`greatest(count - 1, 0)` }).where("buyerId", "=", buyerId).where("day", "=", day).execute();
}

/** Schedules deliveries for a lead inside the lead's own transaction (the outbox). */
export async function scheduleDeliveries(tx: Transaction<Tables>, lead: { id: string | number; reference: string }, deliveries: readonly NewDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await tx
    .insertInto("deliveries")
    .values(
      deliveries.map((delivery) => ({
        leadId: lead.id,
        leadReference: lead.reference,
        kind: delivery.kind,
        target: delivery.target,
        idempotencyKey: delivery.idempotencyKey,
        sale: delivery.sale,
        price: delivery.price,
        url: delivery.url,
        capDay: delivery.capDay,
        lastError: null,
        reason: null,
        lockedUntil: null,
        completedAt: null,
        returnedAt: null,
        ...(delivery.dueAt ? { nextAttemptAt: delivery.dueAt } : {}),
      })),
    )
    .onConflict((conflict) => conflict.column("idempotencyKey").doNothing())
    .execute();
}

export interface Completion {
  outcome: AttemptOutcome;
  httpStatus: number | null;
  latencyMs: number;
  excerpt: string | null;
  attemptedAt: Date;
  /** The status the delivery ends in; "pending" with nextAttemptAt to try again. */
  status: "accepted" | "rejected" | "failed" | "pending";
  nextAttemptAt?: Date;
  price?: number | null;
  /** false when the lead may no longer be sold (its contact opted out after it was stored). */
  sale?: boolean;
  error?: string | null;
  reason?: string | null;
}

export function deliveryRepository(db: Database) {
  const builder = db.builder;
  return {
    /**
     * Claims up to `limit` due deliveries for this replica: pending ones whose time has come, and
     * ones another replica claimed but never finished (it died: the lease ran out). Each claim is
     * an attempt; the lease covers the send.
     */
    async claimDue(limit: number, leaseMs: number, now: Date = new Date()): Promise<DeliveryRecord[]> {
      const rows = await builder
        .updateTable("deliveries")
        .set({ status: "sending", lockedUntil: new Date(now.getTime() + leaseMs), attempts: sql`attempts + 1` })
        .where("id", "in", (sub) =>
          sub
            .selectFrom("deliveries")
            .select("id")
            .where((where) =>
              where.or([
                where.and([where("status", "=", "pending"), where("nextAttemptAt", "<=", now)]),
                where.and([where("status", "=", "sending"), where("lockedUntil", "<", now)]),
              ]),
            )
            .orderBy("nextAttemptAt")
            .limit(limit)
            .forUpdate()
            .skipLocked(),
        )
        .returning(COLUMNS)
        .execute();
      return rows.map(fromRow);
    },

    /**
     * Records one attempt and its result in one transaction. Only the claim that is still
     * current may finish (status "sending"); false when it was taken over meanwhile.
     * `then` runs in the same transaction (e.g. to schedule a postback once a buyer accepts).
     */
    async complete(delivery: DeliveryRecord, done: Completion, then?: (tx: Transaction<Tables>) => Promise<void>): Promise<boolean> {
      return builder.transaction().execute(async (tx) => {
        const updated = await tx
          .updateTable("deliveries")
          .set({
            status: done.status,
            lockedUntil: null,
            lastError: done.error ?? null,
            ...(done.reason !== undefined ? { reason: done.reason } : {}),
            ...(done.price !== undefined ? { price: done.price } : {}),
            ...(done.sale !== undefined ? { sale: done.sale } : {}),
            ...(done.nextAttemptAt ? { nextAttemptAt: done.nextAttemptAt } : {}),
            ...(done.status === "pending" ? {} : { completedAt: done.attemptedAt }),
          })
          .where("id", "=", delivery.id)
          .where("status", "=", "sending")
          .where("attempts", "=", delivery.attempts)
          .returning("id")
          .executeTakeFirst();
        if (!updated) return false;
        await tx
          .insertInto("deliveryAttempts")
          .values({ deliveryId: delivery.id, attemptedAt: done.attemptedAt, httpStatus: done.httpStatus, latencyMs: done.latencyMs, outcome: done.outcome, excerpt: done.excerpt })
          .execute();
        if (delivery.kind === "buyer" && (done.status === "rejected" || done.status === "failed") && delivery.capDay !== null) {
          await releaseDailySlot(tx, delivery.target, delivery.capDay);
        }
        if (then) await then(tx);
        return true;
      });
    },

    async list(filter: { status?: DeliveryStatus; since?: Date; reference?: string; kind?: "buyer" | "postback" } = {}): Promise<DeliveryRecord[]> {
      const { status, since, reference, kind } = filter;
      const rows = await selectDeliveries(builder)
        .$if(status !== undefined, (query) => query.where("status", "=", status!))
        .$if(since !== undefined, (query) => query.where("createdAt", ">=", since!))
        .$if(reference !== undefined, (query) => query.where("leadReference", "=", reference!))
        .$if(kind !== undefined, (query) => query.where("kind", "=", kind!))
        .orderBy("createdAt")
        .orderBy("id")
        .execute();
      return rows.map(fromRow);
    },

    async attempts(deliveryId: string): Promise<AttemptRecord[]> {
      return builder
        .selectFrom("deliveryAttempts")
        .select(["attemptedAt", "httpStatus", "latencyMs", "outcome", "excerpt"])
        .where("deliveryId", "=", deliveryId)
        .orderBy("attemptedAt")
        .orderBy("id")
        .execute();
    },

    /**
     * Sends failed (dead-lettered) deliveries of a lead again, from now; optionally only one
     * buyer's. Returns how many were put back in the queue.
     */
    async retry(reference: string, target?: string, now: Date = new Date()): Promise<number> {
      const rows = await builder
        .updateTable("deliveries")
        .set({ status: "pending", nextAttemptAt: now, lastError: null, completedAt: null, attempts: 0 })
        .where("leadReference", "=", reference)
        .where("status", "=", "failed")
        .$if(target !== undefined, (query) => query.where("target", "=", target!))
        .returning("id")
        .execute();
      return rows.length;
    },

    /**
     * A buyer returns a lead it accepted (bad number, duplicate, …): the sale is reversed.
     * `then` runs in the same transaction. Returns the delivery, or undefined when this buyer has
     * no accepted delivery of that lead (already returned, never accepted, unknown).
     */
    async recordReturn(reference: string, buyerId: string, reason: string, now: Date = new Date(), then?: (tx: Transaction<Tables>, delivery: DeliveryRecord) => Promise<void>): Promise<DeliveryRecord | undefined> {
      return builder.transaction().execute(async (tx) => {
        const row = await tx
          .updateTable("deliveries")
          .set({ status: "returned", returnedAt: now, reason })
          .where("leadReference", "=", reference)
          .where("kind", "=", "buyer")
          .where("target", "=", buyerId)
          .where("status", "=", "accepted")
          .returning(COLUMNS)
          .executeTakeFirst();
        if (!row) return undefined;
        const delivery = fromRow(row);
        if (then) await then(tx, delivery);
        return delivery;
      });
    },

    /** How many of a lead's buyer deliveries are still accepted (sold and not returned). */
    async acceptedCount(tx: Transaction<Tables>, leadId: string): Promise<number> {
      const row = await tx
        .selectFrom("deliveries")
        .select((select) => select.fn.countAll<number>().as("n"))
        .where("leadId", "=", leadId)
        .where("kind", "=", "buyer")
        .where("status", "=", "accepted")
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Every delivery of the leads with this email or phone: which buyer got which lead, when, at what price (access requests). */
    async forPerson(contact: { email?: string; phone?: string }): Promise<(DeliveryRecord & { receivedAt: Date })[]> {
      if (!contact.email && !contact.phone) return [];
      const rows = await builder
        .selectFrom("deliveries")
        .innerJoin("leads", "leads.id", "deliveries.leadId")
        .select(COLUMNS.map((column) => `deliveries.${column}` as const))
        .select("leads.receivedAt")
        .where((where) =>
          where.or([
            ...(contact.email ? [where("leads.email", "=", contact.email)] : []),
            ...(contact.phone ? [where("leads.phone", "=", contact.phone)] : []),
          ]),
        )
        .orderBy("deliveries.createdAt")
        .execute();
      return rows.map((row) => ({ ...fromRow(row), receivedAt: row.receivedAt }));
    },

    async counts(): Promise<Record<DeliveryStatus, number>> {
      const rows = await builder.selectFrom("deliveries").select(["status", (select) => select.fn.countAll<number>().as("n")]).groupBy("status").execute();
      const counts: Record<DeliveryStatus, number> = { pending: 0, sending: 0, accepted: 0, rejected: 0, failed: 0, returned: 0 };
      for (const row of rows) counts[row.status] = Number(row.n);
      return counts;
    },
  };
}

export type DeliveryRepository = ReturnType<typeof deliveryRepository>;
