/**
 * The deliveries and delivery_attempts tables (and the cap slots of buyer_counters): the one place that reads and
 * writes them (the lead's transaction schedules, the worker claims and records, the ops command
 * and the returns API report and reverse).
 */
import { sql, type RawBuilder, type Transaction } from "kysely";
import type { Builder, Database } from "./database";
import type { AttemptOutcome, DeliveryStatus, SentRequest, Tables } from "./schema";
import { capKeysOf, releaseCounters, reserveCounters, type CapReservation } from "./buyer-counters";
import { auctionsEndedByPosts } from "./auction-status";

export interface NewDelivery {
  kind: "buyer" | "postback" | "revocation";
  target: string;
  idempotencyKey: string;
  sale: boolean;
  price: number | null;
  url: string | null;
  /** The buyer's day whose cap slot this delivery took, to give back if it is refused (null: the buyer has no cap nor budget). */
  capDay: string | null;
  /** The slot to take in the buyer's caps and budgets, when capDay is set (server/db/buyer-counters.ts). */
  reservation?: CapReservation;
  /** How its price was reached ("base $12.00 + Homeowners +$4.00"). */
  priceReason?: string | null;
  /** When the first try is due (now, unless a schedule says later). */
  dueAt?: Date;
}

export interface DeliveryRecord {
  id: string;
  /** Null once the lead is purged. */
  leadId: string | null;
  leadReference: string;
  kind: "buyer" | "postback" | "revocation";
  target: string;
  idempotencyKey: string;
  status: DeliveryStatus;
  sale: boolean;
  price: number | null;
  url: string | null;
  capDay: string | null;
  /** How its price was reached (migration 17); null for older deliveries and postbacks. */
  priceReason: string | null;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  reason: string | null;
  createdAt: Date;
  completedAt: Date | null;
  returnedAt: Date | null;
  /** The auction that sold it, the sale's type and the winning bid's id (server/auction/); null otherwise. */
  auctionId: string | null;
  saleType: "exclusive" | "shared" | null;
  bidId: string | null;
  /** What the buyer calls the lead, from its answer (buyers with their own posting spec). */
  buyerLeadId: string | null;
  /** The request as last sent, masked (buyers with their own posting spec). */
  requestSent: SentRequest | null;
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
  "priceReason",
  "attempts",
  "nextAttemptAt",
  "lastError",
  "reason",
  "createdAt",
  "completedAt",
  "returnedAt",
  "auctionId",
  "saleType",
  "bidId",
  "buyerLeadId",
  "requestSent",
] as const;

type Row = Awaited<ReturnType<ReturnType<typeof selectDeliveries>["executeTakeFirstOrThrow"]>>;

function selectDeliveries(db: Builder | Transaction<Tables>) {
  return db.selectFrom("deliveries").select(COLUMNS);
}

function fromRow(row: Row): DeliveryRecord {
  return {
    ...row,
    id: String(row.id),
    leadId: row.leadId === null ? null : String(row.leadId),
    price: row.price === null ? null : Number(row.price),
    auctionId: row.auctionId === null ? null : String(row.auctionId),
  };
}

/** A new delivery's values, in the order (kind, target, idempotency_key, sale, price, url, cap_day, due_at, cap_keys, cap_spend, price_reason). */
const deliveryValues = (delivery: NewDelivery) =>
  sql`${delivery.kind}::text, ${delivery.target}::text, ${delivery.idempotencyKey}::text, ${delivery.sale}::boolean, ${delivery.price}::numeric, ${delivery.url}::text, ${delivery.capDay}::date, ${delivery.dueAt ?? null}::timestamptz, ${delivery.reservation ? capKeysOf(delivery.reservation.periods) : null}::text, ${delivery.reservation?.price ?? null}::numeric, ${delivery.priceReason ?? null}::text`;
/** deliveryValues' columns. */
const VALUE_COLUMNS = sql.raw("kind, target, idempotency_key, sale, price, url, cap_day, due_at, cap_keys, cap_spend, price_reason");

/** A winning bid's post, as the auction queues it (server/auction/auctions.ts winnerDeliveries). */
export interface WinnerPost {
  target: string;
  idempotencyKey: string;
  price: number;
  priceReason: string;
  capDay: string | null;
  capKeys: string | null;
  capSpend: number | null;
  saleType: "exclusive" | "shared";
  bidId: string | null;
}

/**
 * The winners' posts of an auction, as a statement part: `from` names a CTE with the auction's
 * `id, lead_id, lead_reference` (the row its decision just wrote, server/db/auction-status.ts),
 * so an auction decided and its posts queued are one statement. A key already queued is skipped.
 */
export function insertWinnerPosts(from: RawBuilder<unknown>, posts: readonly WinnerPost[], now: Date): RawBuilder<{ target: string }> {
  return sql<{ target: string }>`
    INSERT INTO deliveries (lead_id, lead_reference, kind, target, idempotency_key, sale, price, price_reason, url, cap_day, cap_keys, cap_spend, next_attempt_at, auction_id, sale_type, bid_id)
    SELECT s.lead_id, s.lead_reference, 'buyer', w.target, w."idempotencyKey", true, w.price, w."priceReason", NULL, w."capDay"::date, w."capKeys", w."capSpend", ${now}::timestamptz, s.id, w."saleType", w."bidId"
    FROM ${from} s, jsonb_to_recordset(${JSON.stringify(posts)}::jsonb)
      AS w(target text, "idempotencyKey" text, price numeric, "priceReason" text, "capDay" text, "capKeys" text, "capSpend" numeric, "saleType" text, "bidId" text)
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING target`;
}

/**
 * A revocation of consent (server/privacy/requests.ts): the posts of these leads not yet sent are
 * stopped, and every buyer that has one of them gets a `consent.revoked` webhook, queued as a
 * delivery of kind `revocation`. `leads` selects lead references. Returns the webhooks' targets.
 */
export async function stopPostsAndQueueRevocations(tx: Transaction<Tables>, leads: RawBuilder<unknown>, revocationReference: string, at: Date): Promise<string[]> {
  await sql`
    UPDATE deliveries SET status = 'failed', reason = ${`consent revoked (${revocationReference})`}::text, completed_at = ${at}::timestamptz, locked_until = NULL
    WHERE lead_reference IN ${leads} AND kind = 'buyer' AND status = 'pending'`.execute(tx);
  return (await revocationWebhooks(tx, leads, at)).map((row) => row.target);
}

/** The revocation webhooks of `leads`: to every buyer that received (or is receiving) one of them. */
async function revocationWebhooks(tx: Transaction<Tables>, leads: RawBuilder<unknown>, at: Date): Promise<{ target: string }[]> {
  const { rows } = await sql<{ target: string }>`
    INSERT INTO deliveries (lead_id, lead_reference, kind, target, idempotency_key, sale, price, url, cap_day, next_attempt_at)
    SELECT lead_id, lead_reference, 'revocation', target, lead_reference || ':' || target || ':revoked', false, NULL, NULL, NULL, ${at}::timestamptz
    FROM deliveries WHERE lead_reference IN ${leads} AND kind = 'buyer' AND status IN ('accepted', 'returned', 'sending')
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING target`.execute(tx);
  return rows;
}

/**
 * INSERT of `deliveries` for the lead that `lead` selects (its id, its reference, and whether its
 * contact is suppressed: then not for sale, no price), skipping those `condition` refuses and keys
 * already queued; nothing when `lead` selects no row. Returns the targets.
 */
function insertDeliveries(lead: RawBuilder<unknown>, deliveries: readonly NewDelivery[], condition: RawBuilder<unknown> = sql`true`): RawBuilder<{ target: string }> {
  if (deliveries.length === 0) return sql<{ target: string }>`SELECT NULL::text AS target WHERE false`;
  const rows = deliveries.map((delivery) => sql`(${deliveryValues(delivery)})`);
  return sql<{ target: string }>`
    INSERT INTO deliveries (lead_id, lead_reference, kind, target, idempotency_key, sale, price, url, cap_day, next_attempt_at, cap_keys, cap_spend, price_reason)
    SELECT l.id, l.reference, v.kind, v.target, v.idempotency_key, v.sale AND NOT l.suppressed,
           CASE WHEN v.sale AND NOT l.suppressed THEN v.price END, v.url, v.cap_day, coalesce(v.due_at, now()), v.cap_keys, v.cap_spend,
           CASE WHEN v.sale AND NOT l.suppressed THEN v.price_reason END
    FROM (${lead}) AS l (id, reference, suppressed), (VALUES ${sql.join(rows)}) AS v (${VALUE_COLUMNS})
    WHERE ${condition}
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING target`;
}

/**
 * The outbox part of the statement that stores a new lead (server/db/leads.ts), as the bodies
 * of two common table expressions that read the new row from the CTE `lead` (no row when the lead
 * was not inserted): `reserved` takes each limited buyer's slot in its caps and budgets,
 * atomically across replicas (server/db/buyer-counters.ts), and `scheduled` inserts the
 * deliveries, a limited buyer's only when its slot was taken, returning their targets.
 */
export function outboxForNewLead(deliveries: readonly NewDelivery[]): { reserved: RawBuilder<{ buyerId: string }>; scheduled: RawBuilder<{ target: string }> } {
  const reservations = deliveries.flatMap((delivery) => (delivery.capDay !== null && delivery.reservation ? [delivery.reservation] : []));
  const reserved = reserveCounters(reservations, sql`(SELECT 1 FROM original) AS lead_stored`);
  const scheduled = insertDeliveries(sql`SELECT id, reference, suppressed FROM original`, deliveries, sql`v.cap_day IS NULL OR v.target IN (SELECT buyer_id FROM reserved)`);
  return { reserved, scheduled };
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
        capKeys: delivery.reservation ? capKeysOf(delivery.reservation.periods) : null,
        capSpend: delivery.reservation?.price ?? null,
        priceReason: delivery.priceReason ?? null,
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
  /** The buyer's own id for the lead, from its answer; kept once given. */
  buyerLeadId?: string | null;
  /** The request as sent, masked: replaces the one kept. */
  requestSent?: SentRequest;
}

/** One attempt's result to record (completeMany), with what it queues. */
export interface CompletionItem {
  delivery: DeliveryRecord;
  done: Completion;
  followUp?: NewDelivery;
}

export function deliveryRepository(db: Database) {
  const builder = db.builder;
  const repository = {
    /**
     * Claims up to `limit` due deliveries for this replica: pending ones whose time has come, and
     * ones another replica claimed but never finished (it died: the lease ran out). Each claim is
     * an attempt; the lease covers the send: `leaseMs` a buyer's, `postbackLeaseMs` (default the
     * same) a source's postback, whose send has a shorter timeout of its own.
     */
    async claimDue(limit: number, leaseMs: number, now: Date = new Date(), postbackLeaseMs: number = leaseMs): Promise<DeliveryRecord[]> {
      const until = new Date(now.getTime() + leaseMs);
      const postbackUntil = new Date(now.getTime() + postbackLeaseMs);
      const rows = await builder
        .updateTable("deliveries")
        .set({
          status: "sending",
          lockedUntil: sql<Date>`CASE WHEN kind = 'postback' THEN ${postbackUntil}::timestamptz ELSE ${until}::timestamptz END`,
          attempts: sql`attempts + 1`,
        })
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
     * Records attempts and their results, any number in one statement (so atomically, in one
     * round trip): each delivery's new state, its attempt row, a refused buyer's cap slot given
     * back, its `followUp` queued (a source's postback once a buyer accepts), and an auction's
     * post's end on the auction: accepted marks it sold, refused or failed marks it `cascading`
     * for the auctioneer to sell to the next best bids (migration 18). Only a claim that
     * is still current may finish (status "sending", same attempt): false for one taken over
     * meanwhile. One answer per item, in order.
     */
    async completeMany(items: readonly CompletionItem[]): Promise<boolean[]> {
      if (items.length === 0) return [];
      const done = items.map(({ delivery, done: d }) => {
        const releaseSlot = delivery.kind === "buyer" && (d.status === "rejected" || d.status === "failed") && delivery.capDay !== null;
        return sql`(${delivery.id}::bigint, ${delivery.attempts}::int, ${d.status}::text, ${d.error ?? null}::text,
          ${d.reason !== undefined}::boolean, ${d.reason ?? null}::text, ${d.price !== undefined}::boolean, ${d.price ?? null}::numeric,
          ${d.sale !== undefined}::boolean, ${d.sale ?? null}::boolean, ${d.nextAttemptAt ?? null}::timestamptz, ${d.attemptedAt}::timestamptz,
          ${d.httpStatus}::int, ${d.latencyMs}::int, ${d.outcome}::text, ${d.excerpt}::text, ${releaseSlot}::boolean,
          ${d.buyerLeadId ?? null}::text, ${d.requestSent === undefined ? null : JSON.stringify(d.requestSent)}::jsonb)`;
      });
      const followUps = items.flatMap(({ delivery, followUp }) => (followUp ? [sql`(${delivery.id}::bigint, ${deliveryValues(followUp)})`] : []));
      // (Kysely puts a raw CTE body in as it is: the parentheses are ours.)
      const { rows } = await sql<{ id: string | number }>`
        WITH done (id, attempts, status, last_error, set_reason, reason, set_price, price, set_sale, sale, next_attempt_at, attempted_at,
                   http_status, latency_ms, outcome, excerpt, release_slot, buyer_lead_id, request_sent) AS (VALUES ${sql.join(done)}),
        updated AS (
          UPDATE deliveries d SET
            status = done.status,
            locked_until = NULL,
            last_error = done.last_error,
            reason = CASE WHEN done.set_reason THEN done.reason ELSE d.reason END,
            price = CASE WHEN done.set_price THEN done.price ELSE d.price END,
            sale = CASE WHEN done.set_sale THEN done.sale ELSE d.sale END,
            next_attempt_at = coalesce(done.next_attempt_at, d.next_attempt_at),
            buyer_lead_id = coalesce(done.buyer_lead_id, d.buyer_lead_id),
            request_sent = coalesce(done.request_sent, d.request_sent),
            completed_at = CASE WHEN done.status = 'pending' THEN d.completed_at ELSE done.attempted_at END
          FROM done
          WHERE d.id = done.id AND d.status = 'sending' AND d.attempts = done.attempts
          RETURNING d.id, d.lead_id, d.lead_reference, d.target, d.cap_keys, d.cap_spend, done.release_slot, d.auction_id, d.status),
        ended AS (
          SELECT auction_id, bool_or(status = 'accepted') AS sold FROM updated
          WHERE auction_id IS NOT NULL AND status IN ('accepted', 'rejected', 'failed') GROUP BY auction_id),
        auctioned AS (${auctionsEndedByPosts}),
        attempt AS (
          INSERT INTO delivery_attempts (delivery_id, attempted_at, http_status, latency_ms, outcome, excerpt)
          SELECT done.id, done.attempted_at, done.http_status, done.latency_ms, done.outcome, done.excerpt
          FROM done JOIN updated ON updated.id = done.id),
        released AS (${releaseCounters(sql`SELECT target, cap_keys, count(*)::int, coalesce(sum(cap_spend), 0) FROM updated WHERE release_slot AND cap_keys IS NOT NULL GROUP BY target, cap_keys`)}),
        followed AS (${
          followUps.length === 0
            ? sql`SELECT 1 WHERE false`
            : sql`
              INSERT INTO deliveries (lead_id, lead_reference, kind, target, idempotency_key, sale, price, url, cap_day, next_attempt_at, cap_keys, cap_spend, price_reason)
              SELECT u.lead_id, u.lead_reference, f.kind, f.target, f.idempotency_key, f.sale, f.price, f.url, f.cap_day, coalesce(f.due_at, now()), f.cap_keys, f.cap_spend, f.price_reason
              FROM updated u
              JOIN (VALUES ${sql.join(followUps)}) AS f (delivery_id, ${VALUE_COLUMNS}) ON f.delivery_id = u.id
              WHERE u.lead_id IS NOT NULL
              ON CONFLICT (idempotency_key) DO NOTHING`
        })
        SELECT id FROM updated`.execute(builder);
      const recorded = new Set(rows.map((row) => String(row.id)));
      return items.map(({ delivery }) => recorded.has(String(delivery.id)));
    },

    /** completeMany for one. */
    async complete(delivery: DeliveryRecord, done: Completion, followUp?: NewDelivery): Promise<boolean> {
      const [recorded] = await repository.completeMany([{ delivery, done, ...(followUp ? { followUp } : {}) }]);
      return recorded ?? false;
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
      // Through the consent record, not the lead: it keeps the phone and email for 5 years, as long
      // as the deliveries themselves, while the lead goes after 3 (server/leads/retention.ts).
      const rows = await builder
        .selectFrom("deliveries")
        .innerJoin("leadConsents", "leadConsents.leadReference", "deliveries.leadReference")
        .leftJoin("leads", "leads.id", "deliveries.leadId")
        .select(COLUMNS.map((column) => `deliveries.${column}` as const))
        // The lead's own time while it exists; after its 3 years, the consent's (the same submission).
        .select(sql<Date>`coalesce(leads.received_at, lead_consents.consented_at)`.as("receivedAt"))
        .where((where) =>
          where.or([
            ...(contact.email ? [where("leadConsents.email", "=", contact.email)] : []),
            ...(contact.phone ? [where("leadConsents.phone", "=", contact.phone)] : []),
          ]),
        )
        .orderBy("deliveries.createdAt")
        .orderBy("deliveries.id")
        .execute();
      return rows.map((row) => ({ ...fromRow(row), receivedAt: row.receivedAt }));
    },

    /**
     * The retention job's part (server/leads/retention.ts): deletes finished deliveries scheduled
     * before the cutoff, with their attempts, and finished auctions (with their pings); one still
     * pending or sending stays. Returns how many deliveries.
     */
    async purgeBefore(cutoff: Date, options: { dryRun?: boolean } = {}): Promise<number> {
      const finished = ["accepted", "rejected", "failed", "returned"] as const;
      if (options.dryRun) {
        const row = await builder.selectFrom("deliveries").select((select) => select.fn.countAll<number>().as("n")).where("createdAt", "<", cutoff).where("status", "in", finished).executeTakeFirst();
        return Number(row?.n ?? 0);
      }
      const deleted = await builder.deleteFrom("deliveries").where("createdAt", "<", cutoff).where("status", "in", finished).executeTakeFirst();
      // The auctions of that time go with them (their pings too): who bid what for a lead is part of its delivery record.
      await builder.deleteFrom("auctions").where("createdAt", "<", cutoff).where("status", "in", ["sold", "unsold"]).execute();
      return Number(deleted.numDeletedRows);
    },

    async counts(): Promise<Record<DeliveryStatus, number>> {
      const rows = await builder.selectFrom("deliveries").select(["status", (select) => select.fn.countAll<number>().as("n")]).groupBy("status").execute();
      const counts: Record<DeliveryStatus, number> = { pending: 0, sending: 0, accepted: 0, rejected: 0, failed: 0, returned: 0 };
      for (const row of rows) counts[row.status] = Number(row.n);
      return counts;
    },
  };
  return repository;
}

export type DeliveryRepository = ReturnType<typeof deliveryRepository>;
