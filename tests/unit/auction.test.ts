/**
 * The auction's pure parts (issue 16, server/auction/): who wins (exclusive against the sum of the
 * best shared bids, ties, the cascade), how an answer is read (signed, typed, priced, in time), and
 * the ages a ping carries instead of dates of birth.
 */
import { describe, expect, it } from "vitest";
import { readBid, type Bid } from "../../server/auction/bids";
import { saleRevenue, selectWinners } from "../../server/auction/select";
import { ageOn } from "../../server/auction/ping";
import { buyerSchema, buyersFileSchema, type Buyer } from "../../server/delivery/buyers";
import { signBody } from "../../server/delivery/signature";
import type { SendResult } from "../../server/delivery/http-send";

let order = 0;
const bid = (buyerId: string, price: number, type: Bid["type"], extra: Partial<Bid> = {}): Bid => ({ buyerId, price, type, bidId: `${buyerId}-bid`, priority: 0, answeredAfterMs: (order += 10), ...extra });
const ids = (bids: readonly Bid[]) => bids.map((one) => one.buyerId);

describe("selectWinners: exclusive against the best shared bids", () => {
  it("sells shared when the best shared bids add up to more than the best exclusive", () => {
    const sale = selectWinners([bid("ex", 24, "exclusive"), bid("a", 10, "shared"), bid("b", 9, "shared"), bid("c", 8, "shared")], { maxShared: 4 });
    expect(sale.type).toBe("shared");
    expect(ids(sale.winners)).toEqual(["a", "b", "c"]);
    expect(saleRevenue(sale)).toBe(27);
  });

  it("sells exclusive when the exclusive bid beats the sum; a tie goes to the shared buyers", () => {
    expect(selectWinners([bid("ex", 27.01, "exclusive"), bid("a", 10, "shared"), bid("b", 9, "shared"), bid("c", 8, "shared")], { maxShared: 4 })).toMatchObject({ type: "exclusive", winners: [{ buyerId: "ex" }] });
    expect(selectWinners([bid("ex", 27, "exclusive"), bid("a", 10, "shared"), bid("b", 9, "shared"), bid("c", 8, "shared")], { maxShared: 4 }).type).toBe("shared");
    // Cents are counted exactly: 0.1 + 0.2 is 0.3, not more.
    expect(selectWinners([bid("ex", 0.3, "exclusive"), bid("a", 0.1, "shared"), bid("b", 0.2, "shared")], { maxShared: 4 }).type).toBe("shared");
  });

  it("counts at most maxShared shared bids, the best of them", () => {
    const bids = [bid("a", 5, "shared"), bid("b", 9, "shared"), bid("c", 7, "shared"), bid("d", 8, "shared"), bid("e", 6, "shared"), bid("ex", 31, "exclusive")];
    expect(ids(selectWinners(bids, { maxShared: 4 }).winners)).toEqual(["ex"]);
    const shared = selectWinners(bids, { maxShared: 2 });
    expect(shared.type).toBe("exclusive");
    expect(ids(selectWinners(bids.slice(0, 5), { maxShared: 2 }).winners)).toEqual(["b", "d"]);
  });

  it("breaks a tie by priority, then by the earlier answer", () => {
    expect(ids(selectWinners([bid("late", 20, "exclusive", { answeredAfterMs: 300 }), bid("early", 20, "exclusive", { answeredAfterMs: 100 })], { maxShared: 4 }).winners)).toEqual(["early"]);
    expect(ids(selectWinners([bid("early", 20, "exclusive", { answeredAfterMs: 100 }), bid("preferred", 20, "exclusive", { answeredAfterMs: 300, priority: 5 })], { maxShared: 4 }).winners)).toEqual(["preferred"]);
    expect(ids(selectWinners([bid("a", 5, "shared", { answeredAfterMs: 50 }), bid("b", 5, "shared", { answeredAfterMs: 40 })], { maxShared: 1 }).winners)).toEqual(["b"]);
  });

  it("cascades: a failed buyer is out, accepted shared sales keep their places and rule out an exclusive", () => {
    const bids = [bid("ex", 40, "exclusive"), bid("ex2", 30, "exclusive"), bid("a", 10, "shared"), bid("b", 9, "shared")];
    expect(ids(selectWinners(bids, { maxShared: 4 }).winners)).toEqual(["ex"]);
    // The exclusive winner refused the post: the next best exclusive still beats the shared sum.
    expect(ids(selectWinners(bids, { maxShared: 4, excluded: new Set(["ex"]) }).winners)).toEqual(["ex2"]);
    expect(ids(selectWinners(bids, { maxShared: 4, excluded: new Set(["ex", "ex2"]) }).winners)).toEqual(["a", "b"]);
    // "a" accepted a shared sale and "b" refused: one more shared place is free, no exclusive.
    const more = [...bids, bid("c", 3, "shared")];
    expect(selectWinners(more, { maxShared: 2, acceptedShared: 1, excluded: new Set(["a", "b"]) })).toMatchObject({ type: "shared", winners: [{ buyerId: "c" }] });
    expect(selectWinners(more, { maxShared: 2, acceptedShared: 2, excluded: new Set(["a", "b"]) })).toEqual({ type: "unsold", winners: [], reason: "every shared place is taken" });
  });

  it("is unsold without a valid bid, and never sells one buyer twice", () => {
    expect(selectWinners([], { maxShared: 4 })).toEqual({ type: "unsold", winners: [], reason: "no valid bid" });
    expect(selectWinners([bid("ex", 9, "exclusive")], { maxShared: 4, acceptedShared: 1 })).toEqual({ type: "unsold", winners: [], reason: "no bid of a type still for sale" });
    const twice = selectWinners([bid("a", 10, "shared"), bid("a", 9, "shared", { bidId: "again" }), bid("b", 1, "shared")], { maxShared: 4 });
    expect(ids(twice.winners)).toEqual(["a", "b"]);
  });
});

describe("readBid: a bid is signed, typed, priced and in time", () => {
  const SECRET = "auction-buyer-secret-0123456789abcdef";
  const NOW = new Date("2026-11-24T12:00:00Z");
  const buyer: Buyer = buyerSchema.parse({ id: "acme", name: "Acme", mode: "pingpost", pingUrl: "https://acme.example/ping", postUrl: "https://acme.example/post", secret: SECRET, price: 0, saleTypes: ["exclusive", "shared"], priority: 3 });
  const options = { answeredAfterMs: 120, deadlineMs: 750, floor: 5, now: NOW };
  const answer = (body: string, extra: Partial<SendResult> = {}): SendResult => ({ outcome: "accepted", httpStatus: 200, latencyMs: 120, excerpt: null, body, retryAfter: null, signature: signBody(SECRET, body, NOW), ...extra });
  const bidBody = (bidValue: unknown) => JSON.stringify({ bid: bidValue });

  it("reads a signed bid with its price, type, bid id and the buyer's priority", () => {
    expect(readBid(buyer, answer(bidBody({ price: 24, type: "exclusive", bidId: "b-1" })), options)).toEqual({
      buyerId: "acme",
      outcome: "bid",
      latencyMs: 120,
      httpStatus: 200,
      detail: null,
      bid: { buyerId: "acme", price: 24, type: "exclusive", bidId: "b-1", priority: 3, answeredAfterMs: 120 },
    });
  });

  it("counts everything else as no bid, saying why", () => {
    const outcomeOf = (result: SendResult, extra = {}) => readBid(buyer, result, { ...options, ...extra }).outcome;
    expect(outcomeOf(answer(bidBody(null)))).toBe("no_bid");
    expect(outcomeOf(answer("", { httpStatus: 204 }))).toBe("no_bid");
    expect(outcomeOf(answer(bidBody({ price: 24, type: "exclusive", bidId: "b-1" })), { answeredAfterMs: 751 })).toBe("late");
    expect(outcomeOf(answer("", { outcome: "timeout", httpStatus: null }))).toBe("timeout");
    expect(outcomeOf(answer("", { outcome: "network_error", httpStatus: null }))).toBe("network_error");
    expect(outcomeOf(answer("oops", { outcome: "retry", httpStatus: 500 }))).toBe("http_error");
    expect(outcomeOf(answer("<html>"))).toBe("malformed");
    expect(outcomeOf(answer(bidBody({ price: "24", type: "exclusive", bidId: "b-1" })))).toBe("malformed");
    expect(outcomeOf(answer(bidBody({ price: 24.001, type: "exclusive", bidId: "b-1" })))).toBe("malformed");
    expect(outcomeOf(answer(bidBody({ price: 24, type: "exclusive", bidId: "has space" })))).toBe("malformed");
    expect(outcomeOf(answer(bidBody({ price: 24, type: "exclusive", bidId: "b-1" }), { signature: null }))).toBe("unsigned");
    expect(outcomeOf(answer(bidBody({ price: 24, type: "exclusive", bidId: "b-1" }), { signature: signBody("another-secret-another-secret-0000", bidBody({ price: 24, type: "exclusive", bidId: "b-1" }), NOW) }))).toBe("unsigned");
    expect(outcomeOf(answer(bidBody({ price: 4.99, type: "shared", bidId: "b-1" })))).toBe("below_floor");
    const sharedOnly = { ...buyer, saleTypes: ["shared" as const] };
    expect(readBid(sharedOnly, answer(bidBody({ price: 24, type: "exclusive", bidId: "b-1" })), options)).toMatchObject({ outcome: "wrong_type", bid: null });
  });
});

describe("the buyers file's ping/post buyers", () => {
  const base = { id: "acme", name: "Acme", secret: "s".repeat(32), price: 0 };
  const problems = (buyer: Record<string, unknown>) => {
    const parsed = buyersFileSchema.safeParse({ buyers: [buyer] });
    return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  };

  it("takes a pingpost buyer with pingUrl and postUrl, with defaults for the rest", () => {
    const file = buyersFileSchema.parse({ buyers: [{ ...base, mode: "pingpost", pingUrl: "https://a.example/ping", postUrl: "https://a.example/post", saleTypes: ["exclusive"] }] });
    expect(file.buyers[0]).toMatchObject({ mode: "pingpost", url: "https://a.example/post", pingTimeoutMs: 500, saleTypes: ["exclusive"], priority: 0, sandbox: false });
    expect(file.auction).toEqual({ maxShared: 4, bidLifetimeMs: 60_000 });
    // A post buyer is today's: shared, at its price.
    expect(buyersFileSchema.parse({ buyers: [{ ...base, url: "https://a.example/leads" }] }).buyers[0]).toMatchObject({ mode: "post", saleTypes: ["shared"] });
  });

  it("names each mistake", () => {
    expect(problems({ ...base, mode: "pingpost", postUrl: "https://a.example/post" })).toEqual(["buyers.0.pingUrl: a pingpost buyer needs its pingUrl"]);
    expect(problems({ ...base, url: "https://a.example/leads", pingUrl: "https://a.example/ping" })).toEqual(['buyers.0.pingUrl: a pingUrl is for "mode": "pingpost" only']);
    expect(problems({ ...base, url: "https://a.example/leads", saleTypes: ["exclusive"] })[0]).toMatch(/^buyers.0.saleTypes: a "post" buyer buys every matching lead at its price, so only shared/);
    expect(problems({ ...base, mode: "pingpost", pingUrl: "https://a.example/ping", url: "https://a.example/x", postUrl: "https://a.example/y" })).toEqual(["buyers.0.postUrl: give the post address once, as url or postUrl"]);
    expect(problems({ ...base, mode: "auction", url: "https://a.example/leads" })[0]).toMatch(/^buyers.0.mode: /);
  });
});

describe("ages instead of dates of birth", () => {
  it("counts whole years, the birthday itself included", () => {
    expect(ageOn("1990-04-15", new Date("2026-04-14T23:59:59Z"))).toBe(35);
    expect(ageOn("1990-04-15", new Date("2026-04-15T00:00:00Z"))).toBe(36);
    expect(ageOn("2008-02-29", new Date("2026-02-28T12:00:00Z"))).toBe(17);
    expect(ageOn("2008-02-29", new Date("2026-03-01T00:00:00Z"))).toBe(18);
  });
});
