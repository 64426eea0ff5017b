/**
 * The auction as the server runs it (issue 16; docs/lead-auction.md): an `auctions` row is written
 * with the lead (the outbox, server/db/leads.ts); a worker in any replica claims it, pings the
 * eligible ping/post buyers (fixed-price buyers take part with a standing shared bid at their
 * price), records every answer, and settles the sale: the winners' posts are queued as deliveries
 * (sent by the delivery worker, with the bid id), the auction is marked decided. Usually in one
 * statement, written only while the auction is still `pinging`; with caps or budgets to reserve, in
 * one transaction with the auction's row locked (decision 035). A refused or failed post settles
 * again (the cascade, a transaction) while the bids are valid. Two replicas finishing the same
 * auction sell it once: the row lock, the status each step expects, one delivery per lead and
 * buyer (its key), and at most one live exclusive delivery per lead (a unique index) all hold it.
 */
import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Transaction } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../db/database";
import type { AuctionStatus, Tables } from "../db/schema";
import { leadRepository, type LeadRecord, type NewAuction } from "../db/leads";
import { insertWinnerPosts, scheduleDeliveries, type WinnerPost } from "../db/deliveries";
import { cascadeUnchanged, claimAuctions, decideAuction, endUnsold } from "../db/auction-status";
import { capPeriods, isLimited, shutByLimits, type Buyer, type LiveSettings } from "../delivery/buyers";
import { evaluateOffer, mayOffer, offerFacts, priceFor, type OfferFacts } from "../delivery/offer";
import type { LeadChecks } from "../checks/engine";
import { requiresAnything } from "../checks/requirements";
import { capKeysOf, reserveCounters, type CapReservation } from "../db/buyer-counters";
import { auctionBids, auctionDecision, auctionsEnded } from "../metrics";
import { deliveryKey } from "../delivery/plan";
import type { Exchange, SendResult } from "../delivery/http-send";
import type { EventRecorder } from "../analytics/writer";
import type { Bid, PingResult } from "./bids";
import { pingPayload } from "./ping";
import { pingRound } from "./pinger";
import { selectWinners, type Sale } from "./select";
import { isDatabaseUnavailable } from "../db/unavailable";
import type { OutageLog } from "../db/outage";
import { createClaimLoop } from "../workers/claim-loop";
import { httpSpecOf } from "../delivery/spec";

export interface AuctionRecord {
  id: string;
  leadId: string | null;
  leadReference: string;
  pingId: string;
  test: boolean;
  floor: number;
  status: AuctionStatus;
  saleType: "exclusive" | "shared" | null;
  reason: string | null;
  pingedAt: Date | null;
  bidsExpireAt: Date | null;
  decidedAt: Date | null;
}

export const newAuction = (options: { test: boolean; floor: number }): NewAuction => ({ pingId: randomUUID(), ...options });

/** Deliveries that hold their buyer's place in the sale: not refused, not failed. */
const LIVE = ["pending", "sending", "accepted", "returned"] as const;

const toRecord = (row: Record<string, unknown>): AuctionRecord => ({
  id: String(row.id),
  leadId: row.leadId === null ? null : String(row.leadId),
  leadReference: row.leadReference as string,
  pingId: row.pingId as string,
  test: row.test as boolean,
  floor: Number(row.floor),
  status: row.status as AuctionStatus,
  saleType: row.saleType as AuctionRecord["saleType"],
  reason: row.reason as string | null,
  pingedAt: row.pingedAt as Date | null,
  bidsExpireAt: row.bidsExpireAt as Date | null,
  decidedAt: (row.decidedAt as Date | null | undefined) ?? null,
});

export interface SettleOptions {
  buyers: LiveSettings;
  now: Date;
  /** The lead may be sold (no GPC, not on the suppression list). */
  saleAllowed: boolean;
  /**
   * The ping round just run: recorded in the first settlement's transaction and decided on as they
   * are (one round trip for the record, none to read the bids back). Ignored once decided.
   */
  pings?: { results: readonly PingResult[]; at: Date };
  /**
   * The auction as this worker claimed it (status pinging), with `pings`: the first settlement is
   * then written in one statement when it can be (settleFirstAtOnce), not five.
   */
  claimed?: AuctionRecord;
}

/** One answer as its auction_pings row holds it (the auction and the round's time aside). */
const pingRow = (result: PingResult) => ({
  buyerId: result.buyerId,
  outcome: result.outcome,
  latencyMs: result.latencyMs,
  httpStatus: result.httpStatus,
  price: result.bid?.price ?? null,
  saleType: result.bid?.type ?? null,
  bidId: result.bid?.bidId ?? null,
  priority: result.bid?.priority ?? 0,
  answeredAfterMs: result.bid?.answeredAfterMs ?? null,
  detail: result.detail,
  answerExcerpt: result.excerpt ?? null,
  requestSent: result.requestSent ?? null,
});

/**
 * Each buyer's answer (once: a run again after a crash keeps the first), and when the round was
 * pinged, in one statement: inside the first settlement's transaction, or on its own.
 */
async function insertPings(db: Kysely<Tables> | Transaction<Tables>, auctionId: string, results: readonly PingResult[], pingedAt: Date): Promise<void> {
  const pinged = db.updateTable("auctions").set({ pingedAt }).where("id", "=", auctionId).where("pingedAt", "is", null);
  if (results.length === 0) {
    await pinged.execute();
    return;
  }
  await db
    .with("pinged", () => pinged.returning("id"))
    .insertInto("auctionPings")
    .values(
      results.map((result) => {
        const row = pingRow(result);
        return { ...row, requestSent: row.requestSent === null ? null : JSON.stringify(row.requestSent), auctionId, pingedAt };
      }),
    )
    .onConflict((conflict) => conflict.columns(["auctionId", "buyerId"]).doNothing())
    .execute();
}

/** A cascade's view of what the auction already holds, read with its bids in one statement (decide). */
interface HeldDelivery {
  target: string;
  status: string;
  saleType: "exclusive" | "shared" | null;
}
interface HeldBid {
  buyerId: string;
  price: number | string;
  saleType: "exclusive" | "shared" | null;
  bidId: string | null;
  priority: number;
  answeredAfterMs: number | null;
}

/** `after`: a cascade's buyers whose posts were refused or failed before this decision, in order. */
export type Settlement = { outcome: "decided"; sale: Sale; queued: number; after?: string[] } | { outcome: "unsold"; reason: string } | { outcome: "unchanged"; why: string };

export function auctionRepository(db: Database) {
  const builder = db.builder;
  return {
    async find(reference: string): Promise<AuctionRecord | undefined> {
      const row = await builder.selectFrom("auctions").selectAll().where("leadReference", "=", reference).executeTakeFirst();
      return row ? toRecord(row) : undefined;
    },

    /**
     * Claims up to `limit` auctions to run: pending ones; cascading ones (a winner's post was
     * refused or failed: the delivery worker marked it, server/db/deliveries.ts); and pinging or
     * cascading ones whose lease ran out (a replica died).
     */
    async claimDue(limit: number, leaseMs: number, now: Date): Promise<AuctionRecord[]> {
      const { rows } = await claimAuctions(limit, leaseMs, now).execute(builder);
      return rows.map(toRecord);
    },

    /** Every ping's outcome, once per buyer (a second replica's round adds nothing). */
    async recordPings(auctionId: string, results: readonly PingResult[], pingedAt: Date): Promise<void> {
      await insertPings(builder, auctionId, results, pingedAt);
    },

    async pings(auctionId: string) {
      const rows = await builder.selectFrom("auctionPings").selectAll().where("auctionId", "=", auctionId).orderBy("id").execute();
      return rows.map((row) => ({ ...row, id: String(row.id), auctionId: String(row.auctionId), price: row.price === null ? null : Number(row.price) }));
    },

    /**
     * Decides who is sold the lead now, in one transaction with the auction's row locked: the first
     * time (status pinging: the bids are in) and after a refused or failed post (status decided:
     * the cascade, while the bids are valid). Queues the winners' posts.
     */
    async settle(auctionId: string, options: SettleOptions): Promise<Settlement> {
      if (options.pings && options.claimed?.id === auctionId && options.claimed.status === "pinging") {
        const settled = await settleFirstAtOnce(builder, options.claimed, { ...options, pings: options.pings });
        if (settled) return settled;
      }
      return builder.transaction().execute(async (tx) => {
        const row = await tx.selectFrom("auctions").selectAll().where("id", "=", auctionId).forUpdate().executeTakeFirst();
        if (!row) return { outcome: "unchanged", why: "no such auction" };
        const auction = toRecord(row);
        if (auction.status !== "pinging" && auction.status !== "decided" && auction.status !== "cascading") return { outcome: "unchanged", why: `already ${auction.status}` };
        const settlement = await decide(tx, auction, options);
        // A cascade that changed nothing (another winner's post is still live) leaves it decided.
        if (auction.status === "cascading" && settlement.outcome === "unchanged") {
          await cascadeUnchanged(tx, auctionId);
        }
        return settlement;
      });
    },
  };
}

/** The posts a sale queues, one per winner: the delivery row's own columns (the lead's and the auction's are added where it is written). */
function winnerDeliveries(auction: Pick<AuctionRecord, "leadReference" | "floor">, sale: Exclude<Sale, { type: "unsold" }>, reservations: ReadonlyMap<string, CapReservation>): WinnerPost[] {
  return sale.winners.map((bid) => {
    const reservation = reservations.get(bid.buyerId);
    return {
      target: bid.buyerId,
      idempotencyKey: deliveryKey(auction.leadReference, bid.buyerId),
      price: bid.price,
      priceReason: `${bid.bidId === null ? "its fixed price as a standing bid" : `its ${sale.type} bid`} of $${bid.price.toFixed(2)} won the auction${auction.floor > 0 ? ` (source floor $${auction.floor.toFixed(2)})` : ""}`,
      capDay: reservation?.periods.day ?? null,
      capKeys: reservation ? capKeysOf(reservation.periods) : null,
      capSpend: reservation?.price ?? null,
      saleType: sale.type,
      bidId: bid.bidId,
    };
  });
}

/** Why a lead the visitor may not have sold ends unsold: the same words from both ways a settlement is made. */
const NOT_FOR_SALE = "not for sale: the visitor opted out (GPC or the suppression list)";

/** The bids a round carries: a valid bid, or a fixed-price buyer's standing one. */
const bidsOf = (results: readonly PingResult[]): Bid[] => results.flatMap((result) => (result.bid ? [result.bid] : []));

/**
 * The first settlement in one statement (issue 35: statements per lead), for the usual case: the
 * auction still `pinging`, its lead there, and no winner with caps or a budget to reserve. The
 * round's pings, the auction decided (or unsold) and the winners' posts are written together, all
 * of it only if the auction's row still says `pinging` when its lock is taken: a replica that
 * settled first leaves this one nothing to write. Undefined when it wrote nothing (another replica
 * settled, the lead is gone) or a winner has limits: the transaction (decide) then looks again.
 */
async function settleFirstAtOnce(builder: Kysely<Tables>, auction: AuctionRecord, options: SettleOptions & { pings: NonNullable<SettleOptions["pings"]> }): Promise<Settlement | undefined> {
  const { results, at } = options.pings;
  const pingedAt = auction.pingedAt ?? at;
  const expires = new Date(pingedAt.getTime() + options.buyers.auction.bidLifetimeMs);
  const sale: Sale = options.saleAllowed
    ? selectWinners(bidsOf(results), { maxShared: options.buyers.auction.maxShared })
    : { type: "unsold", winners: [], reason: NOT_FOR_SALE };
  const buyerOf = new Map(options.buyers.buyers.map((buyer) => [buyer.id, buyer]));
  const limited = (bid: Bid) => {
    const buyer = buyerOf.get(bid.buyerId);
    return buyer !== undefined && isLimited(buyer);
  };
  if (sale.winners.some(limited)) return undefined;
  const decided = sale.type !== "unsold";
  const pings = results.map(pingRow);
  const posts = decided ? winnerDeliveries(auction, sale, new Map()) : [];
  const { rows } = await sql<{ settled: number; queued: string[] }>`
    WITH settled AS (${decideAuction({ auctionId: auction.id, saleType: decided ? sale.type : null, reason: decided ? null : sale.reason, now: options.now, bidsExpireAt: decided ? expires : null, pingedAt: at, from: "pinging" })}),
    pinged AS (
      INSERT INTO auction_pings (auction_id, buyer_id, outcome, latency_ms, http_status, price, sale_type, bid_id, priority, answered_after_ms, detail, answer_excerpt, request_sent, pinged_at)
      SELECT settled.id, p."buyerId", p.outcome, p."latencyMs", p."httpStatus", p.price, p."saleType", p."bidId", p.priority, p."answeredAfterMs", p.detail, p."answerExcerpt", p."requestSent", ${at}::timestamptz
      FROM settled, jsonb_to_recordset(${JSON.stringify(pings)}::jsonb)
        AS p("buyerId" text, outcome text, "latencyMs" integer, "httpStatus" integer, price numeric, "saleType" text, "bidId" text, priority integer, "answeredAfterMs" integer, detail text, "answerExcerpt" text, "requestSent" jsonb)
      ON CONFLICT (auction_id, buyer_id) DO NOTHING),
    queued AS (${insertWinnerPosts(sql`settled`, posts, options.now)})
    SELECT (SELECT count(*)::integer FROM settled) AS settled, ARRAY(SELECT target FROM queued) AS queued`.execute(builder);
  const row = rows[0];
  if (!row || row.settled === 0) return undefined;
  return decided ? { outcome: "decided", sale, queued: row.queued.length } : { outcome: "unsold", reason: sale.reason };
}

/** The settlement's decision, inside settle's transaction with the auction's row locked. */
async function decide(tx: Transaction<Tables>, auction: AuctionRecord, options: SettleOptions): Promise<Settlement> {
  const auctionId = auction.id;
  const first = auction.status === "pinging";
  const round = first ? options.pings : undefined;
  if (round) {
    await insertPings(tx, auctionId, round.results, round.at);
    auction.pingedAt ??= round.at;
  }
  // A sale's posts are queued in the transaction that moves it past pinging: the first settlement
  // has none yet. A cascade (or a first settlement without the round in hand) reads the posts so
  // far and the bids in one statement (the row is locked first, by its own statement, so this
  // one's snapshot sees every post committed before).
  const held = first && round ? undefined : (await sql<{ deliveries: HeldDelivery[]; bids: HeldBid[] }>`
    SELECT coalesce((SELECT json_agg(json_build_object('target', target, 'status', status, 'saleType', sale_type) ORDER BY id) FROM deliveries WHERE auction_id = ${auctionId}), '[]'::json) AS deliveries,
           coalesce((SELECT json_agg(json_build_object('buyerId', buyer_id, 'price', price, 'saleType', sale_type, 'bidId', bid_id, 'priority', priority, 'answeredAfterMs', answered_after_ms) ORDER BY id)
                     FROM auction_pings WHERE auction_id = ${auctionId} AND outcome IN ('bid', 'standing')), '[]'::json) AS bids`.execute(tx)).rows[0];
  const existing = first ? [] : (held?.deliveries ?? []);
  const live = existing.filter((delivery) => (LIVE as readonly string[]).includes(delivery.status));
  if (live.some((delivery) => delivery.saleType === "exclusive")) return { outcome: "unchanged", why: "sold exclusive" };
  const unsold = async (reason: string): Promise<Settlement> => {
    if (live.length > 0) return { outcome: "unchanged", why: reason };
    await endUnsold(tx, auctionId, reason, options.now);
    return { outcome: "unsold", reason };
  };
  if (auction.leadId === null) return unsold("the lead is gone");
  if (!options.saleAllowed) return unsold(NOT_FOR_SALE);
  const expires = auction.bidsExpireAt ?? new Date((auction.pingedAt ?? options.now).getTime() + options.buyers.auction.bidLifetimeMs);
  if (!first && options.now > expires) return unsold("the bids expired before a post was accepted");

  const bids: Bid[] = round
    ? bidsOf(round.results)
    : (held?.bids ?? []).map((ping) => ({
        buyerId: ping.buyerId,
        price: Number(ping.price),
        type: ping.saleType ?? "shared",
        bidId: ping.bidId,
        priority: ping.priority,
        answeredAfterMs: ping.answeredAfterMs ?? 0,
      }));
  const refused = existing.filter((delivery) => delivery.status === "rejected" || delivery.status === "failed").map((delivery) => delivery.target);
  const excluded = new Set(existing.map((delivery) => delivery.target));
  const acceptedShared = live.filter((delivery) => delivery.saleType === "shared").length;
  const buyerOf = new Map(options.buyers.buyers.map((buyer) => [buyer.id, buyer]));
  // A winner without room in its caps or budgets is out; choose again without it.
  for (let attempt = 0; attempt <= bids.length; attempt += 1) {
    const sale = selectWinners(bids, { maxShared: options.buyers.auction.maxShared, excluded, acceptedShared });
    if (sale.type === "unsold") return unsold(sale.reason);
    const reservations = new Map<string, CapReservation>();
    const shut: string[] = [];
    for (const bid of sale.winners) {
      const buyer = buyerOf.get(bid.buyerId);
      if (!buyer || !isLimited(buyer)) continue;
      if (shutByLimits(buyer, bid.price)) shut.push(buyer.id);
      else reservations.set(buyer.id, { buyerId: buyer.id, periods: capPeriods(buyer, options.now), price: bid.price, caps: buyer.caps, budget: buyer.budget });
    }
    if (shut.length === 0 && reservations.size > 0) {
      // All the winners' slots or none: a winner without room undoes the others' (the savepoint).
      await sql`SAVEPOINT auction_caps`.execute(tx);
      const { rows } = await reserveCounters([...reservations.values()]).execute(tx);
      const got = new Set(rows.map((row) => row.buyerId));
      for (const buyerId of reservations.keys()) if (!got.has(buyerId)) shut.push(buyerId);
      if (shut.length > 0) await sql`ROLLBACK TO SAVEPOINT auction_caps`.execute(tx);
    }
    if (shut.length > 0) {
      for (const buyerId of shut) excluded.add(buyerId);
      continue;
    }
    // The winners' posts and the auction decided, in one statement.
    const { rows: queued } = await sql<{ target: string }>`
      WITH decided AS (${decideAuction({ auctionId, saleType: acceptedShared > 0 ? "shared" : sale.type, reason: null, now: options.now, bidsExpireAt: expires })})
      ${insertWinnerPosts(sql`decided`, winnerDeliveries(auction, sale, reservations), options.now)}`.execute(tx);
    return { outcome: "decided", sale, queued: queued.length, ...(refused.length > 0 ? { after: refused } : {}) };
  }
  return unsold("every bidder's cap or budget is reached");
}

export type AuctionRepository = ReturnType<typeof auctionRepository>;

export interface AuctioneerOptions {
  db: Database;
  /** The settings in force at each auction (server/settings/directory.ts). */
  buyers: () => LiveSettings;
  logger: Logger;
  /** AUCTION_DEADLINE_MS: the whole ping round's limit. */
  deadlineMs: number;
  /** Whether each lead may be sold now (GPC, the suppression list), for a claimed batch at once; one answer per lead, in order. */
  salesAllowed?: (leads: readonly LeadRecord[]) => Promise<boolean[]>;
  /** Posts were queued: the delivery worker should look at once. */
  onQueued?: () => void;
  /** Where each ping's outcome is counted for the report (buyer_pinged; never for a test lead). */
  analytics?: EventRecorder;
  pollMs?: number;
  /** How often it looks while no active buyer bids (default 30 s): leads then start no auction, only a cascade or a lease run out may need one. */
  idlePollMs?: number;
  /** Where an unreachable database is told once per outage (server/db/outage.ts) instead of a line per claim. */
  outage?: OutageLog;
  concurrency?: number;
  now?: () => Date;
  clock?: () => number;
  send?: (url: string, exchange: Exchange, timeoutMs: number) => Promise<SendResult>;
  /**
   * The checks buyers' requirements need before a ping (server/checks/engine.ts): those without
   * contact details only (LeadiD, a certificate's shape). A buyer that fails one is not pinged (nor
   * given a standing bid), recorded as not_sent with the reason.
   */
  checks?: LeadChecks;
}

export interface Auctioneer {
  start(): void;
  stop(): Promise<void>;
  /** Runs what is due once; resolves with how many auctions it ran. */
  runOnce(): Promise<number>;
  nudge(): void;
}

/** The buyers that may be offered this lead (server/delivery/offer.ts: named in its disclosure, of the lead's kind, taking its state and its answers, open), its facts worked out once. */
export function eligibleBuyers(buyers: LiveSettings, named: ReadonlySet<string>, facts: OfferFacts, now: Date): Buyer[] {
  // A cap of 0 takes nothing; its budgets are checked against the winning bid when it is known.
  return buyers.buyers.filter((buyer) => mayOffer(buyer, facts, named, now) && !shutByLimits(buyer, 0));
}

export function createAuctioneer(options: AuctioneerOptions): Auctioneer {
  const { db, logger } = options;
  const repository = auctionRepository(db);
  const leads = leadRepository(db);
  const now = options.now ?? (() => new Date());
  const pollMs = options.pollMs ?? 250;
  const idlePollMs = options.idlePollMs ?? 30_000;
  // A lead starts an auction only when a ping/post buyer could bid (server/delivery/routing.ts); a wake-up still looks at once.
  const bidding = () => options.buyers().buyers.some((buyer) => buyer.mode === "pingpost" && buyer.status === "active");
  // Each auction mostly waits (up to AUCTION_DEADLINE_MS) for its bids: a few hundred at once cost little.
  const concurrency = options.concurrency ?? 256;
  const log = logger.child({ component: "auction" });
  const leaseMs = options.deadlineMs + 30_000;
  /** A stored disclosure version never changes (decision 010): its named buyers are read once per process. */
  const namedByVersion = new Map<number, Promise<Set<string>>>();
  async function namedBuyers(lead: LeadRecord): Promise<Set<string>> {
    if (!lead.consent) return new Set();
    const version = lead.consent.disclosureVersion;
    let named = namedByVersion.get(version);
    if (!named) {
      named = db.builder
        .selectFrom("consentDisclosures")
        .select("buyerIds")
        .where("version", "=", version)
        .executeTakeFirst()
        .then((row) => {
          // Not stored (yet): nobody is named, and the next auction asks again.
          if (!row) namedByVersion.delete(version);
          return new Set(row?.buyerIds ?? []);
        });
      // A failed read is not kept: the next auction asks again.
      named.catch(() => namedByVersion.delete(version));
      namedByVersion.set(version, named);
    }
    return named;
  }

  async function settle(auction: AuctionRecord, saleAllowed: boolean, pings?: SettleOptions["pings"]): Promise<Settlement> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await repository.settle(auction.id, { buyers: options.buyers(), now: now(), saleAllowed, ...(pings ? { pings, claimed: auction } : {}) });
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
  }

  /**
   * The winners' posts are queued: the checks their requirements need before a post start now, in
   * this process's one engine, while the delivery worker claims the posts (its gate then shares the
   * calls in flight, or reads their answers). Only winners: a post will follow.
   */
  function checkWinners(lead: LeadRecord | undefined, sale: Sale): void {
    if (!options.checks || !lead) return;
    const winners = new Set(sale.winners.map((bid) => bid.buyerId));
    const demanding = options.buyers().buyers.filter((buyer) => winners.has(buyer.id) && requiresAnything(buyer.requirements));
    if (demanding.length > 0) options.checks.prefetch(lead, demanding, "post");
  }

  /** A winner's post was refused or failed (the delivery worker marked the auction cascading): the next best bids. */
  async function cascade(auction: AuctionRecord, saleAllowed: boolean, lead: LeadRecord | undefined): Promise<void> {
    const settlement = await settle(auction, saleAllowed);
    if (settlement.outcome === "decided") {
      checkWinners(lead, settlement.sale);
      log.info({ event: "auction_cascaded", reference: auction.leadReference, after: settlement.after ?? [], saleType: settlement.sale.type, winners: settlement.sale.winners.map((bid) => ({ buyerId: bid.buyerId, price: bid.price })) }, "post refused: the lead goes to the next best bid");
      options.onQueued?.();
    } else if (settlement.outcome === "unsold") {
      log.info({ event: "auction_unsold", reference: auction.leadReference, reason: settlement.reason }, "auction ended unsold");
    }
  }

  /** One claimed auction, its lead and whether it may be sold read for the whole batch (claimAndStart). */
  async function run(auction: AuctionRecord, lead: LeadRecord | undefined, saleAllowed: boolean): Promise<void> {
    if (auction.status === "cascading") return cascade(auction, saleAllowed, lead);
    const buyers = options.buyers();
    if (!lead) {
      await settle(auction, false);
      return;
    }
    const at = now();
    // The drivers' ages at the time of offer, the incident totals: once for every buyer.
    const facts = offerFacts({ ...lead, test: auction.test }, at);
    if (!saleAllowed) {
      // Opted out since the form was sent: not auctioned, not sold; sent as the visitor directed,
      // for quotes only, to the buyers named beside the consent box (decision 011).
      const named = await namedBuyers(lead);
      // The buyer's own filters still hold (it takes no lead it filters out), its schedule does not: not a sale.
      const directed = buyers.buyers.filter((buyer) => evaluateOffer(buyer, facts, { named, now: at, schedule: false }).offered);
      if (auction.leadId !== null && directed.length > 0) {
        const leadRef = { id: auction.leadId, reference: auction.leadReference };
        await db.builder.transaction().execute((tx) =>
          scheduleDeliveries(
            tx,
            leadRef,
            directed.map((buyer) => ({ kind: "buyer", target: buyer.id, idempotencyKey: deliveryKey(auction.leadReference, buyer.id), sale: false, price: null, url: null, capDay: null, dueAt: at })),
          ),
        );
        options.onQueued?.();
      }
      const settlement = await settle(auction, false);
      log.info({ event: "auction_unsold", reference: auction.leadReference, reason: settlement.outcome === "unsold" ? settlement.reason : "not for sale", directed: directed.length }, "not auctioned: the visitor opted out of sale");
      return;
    }
    const offered = eligibleBuyers(buyers, await namedBuyers(lead), facts, at);
    // The checks the offered buyers' requirements need without contact details, once for all of
    // them, in parallel, started with the round: a buyer without requirements is pinged at once, one
    // with them when its checks have answered, within the same deadline. A provider with no answer
    // skips its buyers (an auction cannot wait); their reason is recorded as the ping's.
    const demanding = options.checks ? offered.filter((buyer) => requiresAnything(buyer.requirements)) : [];
    const gating = options.checks && demanding.length > 0 ? options.checks.gate(lead, demanding, "ping") : undefined;
    const heldBack = async (buyer: Buyer): Promise<string | undefined> => {
      const gate = gating && demanding.includes(buyer) ? (await gating).get(buyer.id) : undefined;
      return gate && !gate.pass ? gate.reason : undefined;
    };
    const pinged = offered.filter((buyer) => buyer.mode === "pingpost");
    const results = await pingRound(pinged, pingPayload(lead, auction.pingId, { test: auction.test, now: at }), {
      deadlineMs: options.deadlineMs,
      floor: auction.floor,
      hold: (buyer) => (gating && demanding.includes(buyer) ? heldBack(buyer) : undefined),
      specPing: (buyer) => {
        const spec = httpSpecOf(buyer.spec?.ping);
        return spec ? { spec, rendered: spec.render({ lead, now: at, pingId: auction.pingId, test: auction.test }, { url: buyer.pingUrl!, credentials: buyer.credentials ?? {} }) } : undefined;
      },
      ...(options.clock ? { clock: options.clock } : {}),
      now,
      ...(options.send ? { send: options.send } : {}),
    });
    // A fixed-price buyer bids its price for a shared place, without a ping.
    // A fixed-price buyer bids its price for this lead (its price rules applied) for a shared place, without a ping.
    // A fixed-price buyer whose requirements the lead fails gets no standing bid.
    const held: PingResult[] = [];
    const eligible: Buyer[] = [];
    for (const buyer of offered.filter((one) => one.mode === "post")) {
      const reason = await heldBack(buyer);
      if (reason === undefined) eligible.push(buyer);
      else held.push({ buyerId: buyer.id, outcome: "not_sent", latencyMs: 0, httpStatus: null, bid: null, detail: reason });
    }
    const standing: PingResult[] = eligible
      .filter((buyer) => buyer.mode === "post")
      .map((buyer) => {
        const { price, reason } = priceFor(buyer, facts);
        return {
          buyerId: buyer.id,
          outcome: price >= auction.floor ? "standing" : "below_floor",
          latencyMs: 0,
          httpStatus: null,
          bid: price >= auction.floor ? { buyerId: buyer.id, price, type: "shared", bidId: null, priority: buyer.priority, answeredAfterMs: 0 } : null,
          detail: reason,
        } as PingResult;
      });
    const settlement = await settle({ ...auction, pingedAt: auction.pingedAt ?? at }, saleAllowed, { results: [...results, ...standing, ...held], at });
    // Counted for the report once the round is recorded with its settlement (a round run again
    // after a failed settlement, or settled by another replica, is not counted twice).
    if (!auction.test && settlement.outcome !== "unchanged") {
      for (const result of results) {
        options.analytics?.record({ name: "buyer_pinged", at, leadReference: auction.leadReference, target: result.buyerId, detail: result.outcome, bid: result.outcome === "bid" ? (result.bid?.price ?? null) : null });
      }
    }
    const bids = results.filter((result) => result.outcome === "bid").length;
    // The buyers really pinged: not those held back by their requirements (not_sent).
    const pingedCount = results.filter((result) => result.outcome !== "not_sent").length;
    if (settlement.outcome !== "unchanged") {
      for (const result of [...results, ...standing, ...held]) auctionBids.inc({ outcome: result.outcome });
      auctionsEnded.inc({ outcome: settlement.outcome });
      auctionDecision.observe((now().getTime() - at.getTime()) / 1000);
    }
    if (settlement.outcome === "decided") {
      checkWinners(lead, settlement.sale);
      log.info({ event: "auction_decided", reference: auction.leadReference, pinged: pingedCount, bids, saleType: settlement.sale.type, winners: settlement.sale.winners.map((bid) => ({ buyerId: bid.buyerId, price: bid.price })) }, "auction decided");
      options.onQueued?.();
    } else if (settlement.outcome === "unsold") {
      log.info({ event: "auction_unsold", reference: auction.leadReference, pinged: pingedCount, bids, reason: settlement.reason }, "auction ended unsold");
    }
  }

  const runGuarded = (auction: AuctionRecord, lead: LeadRecord | undefined, saleAllowed: boolean) =>
    run(auction, lead, saleAllowed).catch((error: unknown) => log.error({ event: "auction_error", reference: auction.leadReference, err: error }, "auction failed; its lease runs out and it runs again"));

  /** Claims as many due auctions as there is room for and starts them; resolves with them (not when they end). */
  async function claimAndStart(room: number): Promise<Promise<void>[]> {
    const claimed = await repository.claimDue(room, leaseMs, now());
    if (claimed.length === 0) return [];
    // The batch's leads, and whether each may be sold, in two statements for all of them.
    const found = await leads.findByReferences(claimed.map((auction) => auction.leadReference));
    const present = claimed.flatMap((auction) => found.get(auction.leadReference) ?? []);
    const allowed = options.salesAllowed ? await options.salesAllowed(present) : present.map((lead) => !lead.gpc);
    const allowedOf = new Map(present.map((lead, index) => [lead.reference, allowed[index] ?? false]));
    return claimed.map((auction) => {
      const lead = found.get(auction.leadReference);
      return runGuarded(auction, lead, lead ? (allowedOf.get(lead.reference) ?? false) : false);
    });
  }

  // Most of an auction's time is waiting for bids, so many run at once; a new lead's auction
  // starts at once (a nudge ends every wait but a full one), and an auction's end makes room.
  const loop = createClaimLoop({
    claim: claimAndStart,
    concurrency,
    idleMs: () => (bidding() ? pollMs : idlePollMs),
    gatherMs: pollMs,
    nudgeEndsGathering: true,
    fullMs: pollMs,
    onError(error) {
      if (options.outage && isDatabaseUnavailable(error)) options.outage.met("auction", error);
      else log.error({ event: "auction_error", err: error }, "could not claim auctions");
    },
  });

  return {
    start: () => loop.start(),
    stop: () => loop.stop(),
    runOnce: () => loop.runOnce(),
    nudge: () => loop.nudge(),
  };
}
