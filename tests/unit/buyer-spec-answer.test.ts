/**
 * Reading each example buyer's answers by its rules (issue 43, item 3): accepted with the price
 * and the buyer's id, refused with the reason, try again, a refused key, bids, and an answer no
 * rule matches, which is an error and never a sale.
 */
import { describe, expect, it } from "vitest";
import { compileSpec, parseSpec, type CompiledHttpSpec, type RequestSpecInput, type Stage } from "../../server/delivery/spec";
import { ACME_POST, BOLT_POST, COBALT_PING, COBALT_POST } from "./buyer-spec-examples";

function reader(raw: RequestSpecInput, stage: Stage = "post"): CompiledHttpSpec["readAnswer"] {
  const parsed = parseSpec(raw, stage);
  if (!parsed.ok) throw new Error(`spec refused: ${JSON.stringify(parsed.problems)}`);
  const spec = compileSpec(parsed.spec);
  if (spec.format === "quoteridge") throw new Error("expected an HTTP spec");
  return (answer) => spec.readAnswer(answer);
}

describe("Acme's XML answers", () => {
  const read = reader(ACME_POST);

  it("accepts at $14.25 with its id AC-1001", () => {
    expect(read({ status: 200, body: "<response><status>success</status><lead_id>AC-1001</lead_id><price>14.25</price></response>" })).toEqual({
      outcome: "accepted",
      rule: 0,
      price: 14.25,
      leadId: "AC-1001",
    });
  });

  it("reads an answer with an XML declaration and whitespace the same way", () => {
    const body = '<?xml version="1.0" encoding="UTF-8"?>\n<response>\n  <status>success</status>\n  <lead_id>AC-1001</lead_id>\n  <price>14.25</price>\n</response>\n';
    expect(read({ status: 200, body })).toMatchObject({ outcome: "accepted", price: 14.25, leadId: "AC-1001" });
  });

  it("refuses a duplicate or a rejection with the buyer's message", () => {
    for (const status of ["duplicate", "rejected"]) {
      expect(read({ status: 200, body: `<response><status>${status}</status><message>Already have this consumer</message></response>` })).toEqual({
        outcome: "refused",
        rule: 1,
        reason: "Already have this consumer",
        leadId: null,
      });
    }
  });

  it("gives HTTP 200 as the reason of a refusal without a message", () => {
    expect(read({ status: 200, body: "<response><status>rejected</status></response>" })).toMatchObject({ outcome: "refused", reason: "HTTP 200" });
  });

  it("tries again after <status>error</status>", () => {
    expect(read({ status: 200, body: "<response><status>error</status></response>" })).toEqual({ outcome: "retry", rule: 2, reason: null });
  });

  it("tries again, saying why, when the key is refused (401)", () => {
    expect(read({ status: 401, body: "Unauthorized" })).toEqual({ outcome: "retry", rule: 3, reason: "Acme refused our key (HTTP 401)" });
  });

  it("calls an answer no rule matches an error, with a masked excerpt", () => {
    expect(read({ status: 200, body: "<response><status>pending</status><email>ana@example.com</email></response>" })).toEqual({
      outcome: "error",
      rule: null,
      why: "no answer rule matches this HTTP 200 answer",
      excerpt: "<response><status>pending</status><email>[email]</email></response>",
    });
    expect(read({ status: 500, body: "<html><body>Internal error</body></html>" })).toMatchObject({ outcome: "error", why: "no answer rule matches this HTTP 500 answer" });
    expect(read({ status: 200, body: "not xml at all" })).toMatchObject({ outcome: "error" });
  });

  it("stays accepted when the price cannot be read, with a note", () => {
    expect(read({ status: 200, body: "<response><status>success</status><lead_id>AC-1002</lead_id><price>soon</price></response>" })).toEqual({
      outcome: "accepted",
      rule: 0,
      price: null,
      leadId: "AC-1002",
      note: "the answer's price could not be read: charge the agreed price",
    });
  });
});

describe("Bolt's JSON answers", () => {
  const read = reader(BOLT_POST);

  it('accepts at $11.00 from the string "11.00", with its id B-77', () => {
    expect(read({ status: 201, body: '{ "result": { "accepted": true, "id": "B-77", "payout": "11.00" } }' })).toEqual({ outcome: "accepted", rule: 0, price: 11, leadId: "B-77" });
  });

  it("refuses with the buyer's reason on HTTP 200", () => {
    expect(read({ status: 200, body: '{ "result": { "accepted": false, "why": "State not served" } }' })).toEqual({ outcome: "refused", rule: 1, reason: "State not served", leadId: null });
  });

  it("tries again after a 503", () => {
    expect(read({ status: 503, body: "Service Unavailable" })).toEqual({ outcome: "retry", rule: 2, reason: null });
  });

  it('does not take "accepted": "true" (text) or a missing result as a sale', () => {
    expect(read({ status: 201, body: '{ "result": { "accepted": "true", "id": "B-78" } }' })).toMatchObject({ outcome: "error" });
    expect(read({ status: 201, body: "{}" })).toMatchObject({ outcome: "error" });
    expect(read({ status: 201, body: "OK" })).toMatchObject({ outcome: "error", excerpt: "OK" });
  });
});

describe("Cobalt's answers", () => {
  const ping = reader(COBALT_PING, "ping");
  const post = reader(COBALT_POST);

  it("reads a bid of $9.75 with its bid id CP-9", () => {
    expect(ping({ status: 200, body: '{ "status": "bid", "bid_id": "CP-9", "amount": 9.75 }' })).toEqual({ outcome: "bid", rule: 0, price: 9.75, bidId: "CP-9" });
  });

  it("reads no bid", () => {
    expect(ping({ status: 200, body: '{ "status": "no_bid" }' })).toEqual({ outcome: "no_bid", rule: 1, reason: null });
  });

  it("never takes a bid without a price or without its bid id", () => {
    expect(ping({ status: 200, body: '{ "status": "bid", "bid_id": "CP-9" }' })).toMatchObject({ outcome: "error", rule: 0, why: "a bid without a readable price above 0" });
    expect(ping({ status: 200, body: '{ "status": "bid", "amount": 9.75 }' })).toMatchObject({ outcome: "error", rule: 0, why: "a bid without a readable bid id" });
    expect(ping({ status: 200, body: '{ "status": "bid", "bid_id": "CP-9", "amount": -1 }' })).toMatchObject({ outcome: "error" });
  });

  it("calls a ping answer no rule matches an error", () => {
    expect(ping({ status: 500, body: "oops" })).toMatchObject({ outcome: "error", excerpt: "oops" });
  });

  it("reads the post's sold and rejected", () => {
    expect(post({ status: 200, body: '{ "status": "sold" }' })).toEqual({ outcome: "accepted", rule: 0, price: null, leadId: null });
    expect(post({ status: 200, body: '{ "status": "rejected", "message": "Bid expired" }' })).toEqual({ outcome: "refused", rule: 1, reason: "Bid expired", leadId: null });
  });
});

describe("answer rules by pattern, and other tests", () => {
  const spec = (rules: unknown[], body: "json" | "xml" | "text" = "text"): RequestSpecInput =>
    ({ format: "json", fields: [{ to: "zip", from: "location.zip" }], answer: { body, rules } }) as RequestSpecInput;

  it("reads the price and the lead id from a pattern's groups in a text answer", () => {
    const read = reader(spec([{ status: 200, pattern: "^OK\\|id=([A-Z0-9-]+)\\|price=([\\d.]+)$", outcome: "accepted", leadId: { group: 1 }, price: { group: 2 } }, { pattern: "^DENIED:(.*)$", outcome: "refused", reason: { group: 1 } }]));
    expect(read({ status: 200, body: "OK|id=Z-12|price=4.50" })).toEqual({ outcome: "accepted", rule: 0, price: 4.5, leadId: "Z-12" });
    expect(read({ status: 200, body: "DENIED: no coverage in 90210" })).toEqual({ outcome: "refused", rule: 1, reason: "no coverage in 90210", leadId: null });
  });

  it("tests a value at a path with a pattern, case-insensitively when asked", () => {
    const read = reader(spec([{ path: "result", pattern: "^success", ignoreCase: true, outcome: "accepted" }], "json"));
    expect(read({ status: 200, body: '{"result":"SUCCESS: queued"}' })).toMatchObject({ outcome: "accepted" });
    expect(read({ status: 200, body: '{"result":"failed"}' })).toMatchObject({ outcome: "error" });
  });

  it("matches exists: false, lists, status classes and repeated XML elements", () => {
    const read = reader(
      spec(
        [
          { status: "2xx", path: "r/errors/error", exists: false, outcome: "accepted", leadId: { path: "r/id" } },
          { status: [200, 422], path: "r/errors/error/1", exists: true, outcome: "refused", reason: { path: "r/errors/error/1" } },
          { status: [200, 422], path: "r/errors/error", outcome: "refused", reason: { path: "r/errors/error" } },
        ],
        "xml",
      ),
    );
    expect(read({ status: 202, body: "<r><id>7</id></r>" })).toMatchObject({ outcome: "accepted", leadId: "7" });
    expect(read({ status: 422, body: "<r><errors><error>bad zip</error><error>bad phone</error></errors></r>" })).toMatchObject({ outcome: "refused", rule: 1, reason: "bad phone" });
    expect(read({ status: 200, body: "<r><errors><error>bad zip</error></errors></r>" })).toMatchObject({ outcome: "refused", rule: 2, reason: "bad zip" });
  });

  it("reads only the first 4 KB of a long answer with a pattern", () => {
    const read = reader(spec([{ pattern: "ACCEPTED", outcome: "accepted" }]));
    expect(read({ status: 200, body: `${" ".repeat(5_000)}ACCEPTED` })).toMatchObject({ outcome: "error" });
    expect(read({ status: 200, body: `${" ".repeat(4_000)}ACCEPTED` })).toMatchObject({ outcome: "accepted" });
  });

  it("does not read a prototype's keys as the answer's", () => {
    const read = reader(spec([{ path: "constructor", outcome: "accepted" }], "json"));
    expect(read({ status: 200, body: "{}" })).toMatchObject({ outcome: "error" });
  });

  it("masks contact details a buyer echoes in its refusal's reason", () => {
    const read = reader(spec([{ path: "error", outcome: "refused", reason: { path: "error" } }], "json"));
    expect(read({ status: 200, body: '{"error":"ana.obrien@example.com already bought, call +1 415 555 0134"}' })).toMatchObject({ reason: "[email] already bought, call [number]" });
  });
});
