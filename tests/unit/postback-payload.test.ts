/**
 * A source's postback address and its event id (server/delivery/payload.ts): postbacks are sent
 * at least once, so each carries an id the source deduplicates on (docs/lead-delivery.md).
 */
import { describe, expect, it } from "vitest";
import { postbackDelivery, postbackEventId, postbackUrl } from "../../server/delivery/payload";
import type { Source } from "../../server/delivery/buyers";

const SOURCE: Source = { sid: "fb01", status: "active", payout: 6, floor: 0, postbackUrl: "https://network.example/pb?click={tid}&amount={payout}&s={status}&txn={event_id}" };
const LEAD = { reference: "LD-7K3M-Q9XD", sid: "fb01", tid: "abc 123&x" };
const AT = new Date("2026-11-23T15:00:00Z");

describe("a source's postback", () => {
  it("fills {tid}, {payout}, {status} and {event_id}, each URL-encoded", () => {
    const delivery = postbackDelivery([SOURCE], LEAD, "sold", AT);
    const eventId = postbackEventId(`${LEAD.reference}:postback:sold`);
    expect(delivery).toMatchObject({ kind: "postback", target: "fb01", idempotencyKey: "LD-7K3M-Q9XD:postback:sold", price: 6, dueAt: AT });
    expect(delivery?.url).toBe(`https://network.example/pb?click=abc%20123%26x&amount=6.00&s=sold&txn=${eventId}`);
    expect(postbackUrl("https://n.example/pb?t={tid}&e={event_id}&e2={event_id}", { tid: "t", payout: 1, status: "returned", eventId: "a b" })).toBe("https://n.example/pb?t=t&e=a%20b&e2=a%20b");
  });

  it("gives every attempt of one postback the same event id, and the sold and returned postbacks of a lead different ones", () => {
    const sold = postbackDelivery([SOURCE], LEAD, "sold", AT);
    const soldAgain = postbackDelivery([SOURCE], LEAD, "sold", new Date(AT.getTime() + 60_000));
    const returned = postbackDelivery([SOURCE], LEAD, "returned", AT);
    const otherLead = postbackDelivery([SOURCE], { ...LEAD, reference: "LD-7K3M-Q9XE" }, "sold", AT);
    expect(soldAgain?.url).toBe(sold?.url);
    const ids = [sold, returned, otherLead].map((delivery) => new URL(delivery!.url!).searchParams.get("txn"));
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^pb_[0-9a-f]{32}$/);
  });

  it("tells the source nothing about the lead: the event id does not contain its reference", () => {
    const id = postbackEventId("LD-7K3M-Q9XD:postback:sold");
    expect(id).not.toMatch(/7K3M|Q9XD|LD-|sold/i);
  });

  it("leaves a template without {event_id} as it was (the source deduplicates on the Idempotency-Key header)", () => {
    const delivery = postbackDelivery([{ ...SOURCE, postbackUrl: "https://network.example/pb?tid={tid}&payout={payout}&status={status}" }], LEAD, "returned", AT);
    expect(delivery?.url).toBe("https://network.example/pb?tid=abc%20123%26x&payout=6.00&status=returned");
  });

  it("queues none without a click id, a postback address or an active source", () => {
    expect(postbackDelivery([SOURCE], { ...LEAD, tid: null }, "sold", AT)).toBeUndefined();
    expect(postbackDelivery([{ ...SOURCE, postbackUrl: undefined }], LEAD, "sold", AT)).toBeUndefined();
    expect(postbackDelivery([{ ...SOURCE, status: "archived" }], LEAD, "sold", AT)).toBeUndefined();
  });
});
