/**
 * Issue 43's target "a lead from the form reaches each of the three stubs exactly as specified":
 * the built production server, the three example buyers of deploy/buyer-specs/ imported with
 * `npm run buyers -- import` as the files are (addresses moved to the stub's port; the import makes
 * their secrets), `npm run buyer-stub`'s library playing them, and leads sent through the quote
 * form's API.
 *
 * One auction cannot send a lead to all three at once: Cobalt bids for exclusives only, and the two
 * fixed-price buyers' standing shared bids ($12 + $10) beat any exclusive bid up to $22
 * (server/auction/select.ts). So two leads, on one server:
 * 1. Cobalt answers its ping no_bid: Acme and Bolt share the lead and accept it (Acme at $14.25 as
 *    AC-1001, Bolt at $11.00 as B-77, the prices in their answers winning over the base prices);
 * 2. Cobalt bids $9.75 as CP-9; Acme refuses it as a duplicate, Bolt as a state it does not serve;
 *    with no shared sale left, the cascade sells it to Cobalt's exclusive bid, and the post carries
 *    CP-9 back.
 * Each stub's request is compared with the words field by field, and what was recorded
 * (outcomes, prices, refusal reasons, the buyers' lead ids) is read with `npm run leads --
 * deliveries --reference … --format json`, the pings from the auction's table.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProductionServer, projectRoot, type RunningServer } from "../../tools/production-server";
import { startBuyerStub, type BuyerStub, type SpecRequest } from "../../tools/buyer-stub";
import { leadBody, openLeadSession, postLead, type LeadSession } from "../../tools/lead-session";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { until } from "../support/processes";
import { run as importBuyers } from "../../server/cli/buyers";
import { run as leadsCommand } from "../../server/cli/leads";
import { ageOn } from "../../server/auction/ping";
import { disclosureText, type ShownDisclosure } from "../../shared/consent-disclosure";

const FILES = ["acme-form-xml.json", "bolt-json.json", "cobalt-pingpost.json"];
const STUB_ORIGIN_IN_FILES = "http://127.0.0.1:4100";
const ACME_FIELDS = ["FirstName", "LastName", "Email", "Phone", "Address", "City", "State", "Zip", "DOB", "Married", "V1_Year", "V1_Make", "V1_Model", "V1_Ownership", "Vehicles", "Drivers", "Insured", "CurrentCarrier", "Homeowner", "Accidents", "TCPA_Text", "LeadID", "SubID"];

/** A delivery as `npm run leads -- deliveries --format json` prints it (the fields read here). */
interface ListedDelivery {
  leadReference: string;
  kind: string;
  target: string;
  status: string;
  price: number | null;
  reason: string | null;
  lastError: string | null;
  saleType: string | null;
  bidId: string | null;
  buyerLeadId?: string | null;
  requestSent?: { url: string; headers: Record<string, string>; body: string | null } | null;
  tries?: { httpStatus: number | null; outcome: string; excerpt: string | null }[];
}

/** One lead as sent, and what the test needs to know to predict each buyer's request. */
interface SentLead {
  reference: string;
  email: string;
  /** The 10 digits of the phone number typed. */
  phone10: string;
  disclosure: string;
  sentAt: number;
  answeredAt: number;
}

describe("the three example buyers, from the form to their stubs", { timeout: 180_000 }, () => {
  let postgres: FreshPostgres;
  let folder: string;
  let stub: BuyerStub;
  let server: RunningServer | undefined;
  const stubLines: string[] = [];

  const deliveries = async (reference: string): Promise<ListedDelivery[]> => {
    let text = "";
    const code = await leadsCommand(["deliveries", "--reference", reference, "--format", "json"], (chunk) => (text += chunk), { DATABASE_URL: postgres.url, LOG_LEVEL: "warn" });
    expect(code).toBe(0);
    return (JSON.parse(text) as ListedDelivery[]).filter((delivery) => delivery.kind === "buyer");
  };
  const buyerDelivery = async (reference: string, target: string) => (await deliveries(reference)).find((delivery) => delivery.target === target);
  /** Waits until each buyer's delivery of the lead has finished (accepted, rejected or failed). */
  const settled = async (reference: string, targets: string[]) => {
    const done = await until(async () => {
      const rows = await deliveries(reference);
      return targets.every((target) => rows.some((row) => row.target === target && ["accepted", "rejected", "failed"].includes(row.status)));
    }, 60_000);
    expect(done, `deliveries of ${reference}: ${JSON.stringify(await deliveries(reference))}`).toBe(true);
  };
  const pings = async (reference: string) => {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ buyer_id: string; outcome: string; price: string | null; sale_type: string | null; bid_id: string | null }>(
        "SELECT p.buyer_id, p.outcome, p.price, p.sale_type, p.bid_id FROM auction_pings p JOIN auctions a ON a.id = p.auction_id WHERE a.lead_reference = $1 AND p.buyer_id = 'cobalt'",
        [reference],
      );
      return rows;
    } finally {
      await client.end();
    }
  };

  async function sendLead(): Promise<SentLead> {
    const session: LeadSession = await openLeadSession(server!.origin);
    const shown = (session as LeadSession & { disclosure?: ShownDisclosure }).disclosure;
    const body = leadBody(session);
    const sentAt = Date.now();
    const response = await postLead(server!.origin, session, body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return {
      reference: (response.body as { reference: string }).reference,
      email: String(body.email),
      phone10: String(body.phone).replace(/\D/g, ""),
      disclosure: disclosureText(shown!.parts),
      sentAt,
      answeredAt: Date.now(),
    };
  }

  /** The sample lead's ages (tools/lead-session.ts: Ana born 1990-04-15, licensed at 16; Luis born 1988-11-02), today. */
  const ana = () => ageOn("1990-04-15", new Date());
  const youngest = () => Math.min(ana(), ageOn("1988-11-02", new Date()));

  function expectNoContact(request: SpecRequest, lead: SentLead) {
    for (const value of [lead.email, lead.phone10, lead.phone10.slice(3), "Ana", "O'Brien", "O%27Brien", "Main St", lead.reference]) expect(request.rawBody, value).not.toContain(value);
  }

  beforeAll(async () => {
    postgres = await freshPostgresUrl();
    folder = mkdtempSync(path.join(os.tmpdir(), "buyer-specs-process-"));
    stub = await startBuyerStub({ buyers: {}, log: (line) => stubLines.push(line) });
    // The files as shipped, their addresses moved to this stub's port; imported as the docs say.
    for (const name of FILES) {
      const text = readFileSync(path.join(projectRoot, "deploy", "buyer-specs", name), "utf8");
      expect(text).toContain(STUB_ORIGIN_IN_FILES);
      const file = path.join(folder, name);
      writeFileSync(file, text.replaceAll(STUB_ORIGIN_IN_FILES, stub.origin));
      let output = "";
      const code = await importBuyers(["import", file], (chunk) => (output += chunk), { DATABASE_URL: postgres.url, LOG_LEVEL: "warn", OUTBOUND_ALLOW: "127.0.0.1" });
      expect(code, output).toBe(0);
      expect(output).toMatch(/^Created 1: buyer (acme|bolt|cobalt)\n/);
    }
    server = await startProductionServer(
      { DATABASE_URL: postgres.url, CSRF_SECRET: "a-buyer-specs-test-csrf-secret-of-32-characters", LEAD_MIN_FILL_MS: "0", LEAD_RATE_LIMIT: "100000" },
      { keepLogs: "all" },
    );
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await stub?.stop();
    await postgres?.drop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  let first: SentLead;
  let second: SentLead;

  it("names the three buyers in the disclosure the visitor agrees to", async () => {
    const session = await openLeadSession(server!.origin);
    const text = disclosureText((session as LeadSession & { disclosure?: ShownDisclosure }).disclosure!.parts);
    for (const name of ["Acme Auto Agents", "Bolt Insurance Direct", "Cobalt Exchange"]) expect(text).toContain(name);
  });

  describe("lead 1: Cobalt does not bid; Acme and Bolt share it", () => {
    beforeAll(async () => {
      stub.scriptSpec("cobalt-ping", ["no_bid"]);
      first = await sendLead();
      await stub.waitForSpecRequests("acme", 1, 60_000);
      await stub.waitForSpecRequests("bolt", 1, 60_000);
    }, 150_000);

    it("pings Cobalt with its API key and the lead's facts, never who the person is", () => {
      const [ping, ...more] = stub.specRequests("cobalt-ping");
      expect(more).toEqual([]);
      expect(ping).toMatchObject({ method: "POST", path: "/specs/cobalt/ping", query: {}, authorized: true, test: false });
      expect(ping!.headers["x-api-key"]).toBe("cobalt-test-key-789");
      expect(ping!.headers["content-type"]).toMatch(/^application\/json/);
      expect(ping!.headers["x-test"]).toBeUndefined();
      expect(ping!.body).toEqual({ zip: "90210", state: "CA", vehicle_count: 2, driver_count: 2, youngest_driver_age: youngest(), insured: true, homeowner: true, sr22: false });
      expectNoContact(ping!, first);
      expect(ping!.answer).toEqual({ status: 200, body: '{"status":"no_bid"}' });
    });

    it("records Cobalt's no_bid, and sends Cobalt no post", async () => {
      await settled(first.reference, ["acme", "bolt"]);
      expect(await pings(first.reference)).toEqual([{ buyer_id: "cobalt", outcome: "no_bid", price: null, sale_type: null, bid_id: null }]);
      expect(stub.specRequests("cobalt-post")).toEqual([]);
      expect((await deliveries(first.reference)).map((row) => row.target)).not.toContain("cobalt");
    });

    it("posts Acme the issue's form fields, in order, with the key in the query", () => {
      const [post, ...more] = stub.specRequests("acme");
      expect(more).toEqual([]);
      expect(post).toMatchObject({ method: "POST", path: "/specs/acme/leads", query: { key: "acme-test-key-123" }, authorized: true, test: false, reference: first.reference });
      expect(post!.headers["content-type"]).toMatch(/^application\/x-www-form-urlencoded/);
      expect([...new URLSearchParams(post!.rawBody).keys()]).toEqual(ACME_FIELDS);
      expect(post!.body).toEqual({
        FirstName: "Ana",
        LastName: "O'Brien",
        Email: first.email,
        Phone: first.phone10,
        Address: "123 Main St Apt 4",
        City: "Beverly Hills",
        State: "CA",
        Zip: "90210",
        DOB: "04/15/1990",
        Married: "Y",
        V1_Year: "2019",
        V1_Make: "Toyota",
        V1_Model: "Camry",
        V1_Ownership: "Owned",
        Vehicles: "2",
        Drivers: "2",
        Insured: "Y",
        CurrentCarrier: "GEICO",
        Homeowner: "Y",
        Accidents: "0",
        TCPA_Text: first.disclosure,
        LeadID: first.reference,
        SubID: "a1",
      });
      expect(post!.answer).toEqual({ status: 200, body: "<response><status>success</status><lead_id>AC-1001</lead_id><price>14.25</price></response>" });
    });

    it("posts Bolt the issue's JSON with its bearer token", () => {
      const [post, ...more] = stub.specRequests("bolt");
      expect(more).toEqual([]);
      expect(post).toMatchObject({ method: "POST", path: "/specs/bolt/leads", query: {}, authorized: true, test: false, reference: first.reference });
      expect(post!.headers.authorization).toBe("Bearer bolt-test-token-456");
      expect(post!.headers["content-type"]).toMatch(/^application\/json/);
      expect(post!.body).toEqual({
        source: "quoteridge",
        external_id: first.reference,
        contact: { first: "Ana", last: "O'Brien", email: first.email, phone: `+1${first.phone10}`, street: "123 Main St Apt 4", city: "Beverly Hills", state: "CA", zip: "90210" },
        applicant: { birth_date: "1990-04-15", marital: "married", years_licensed: ana() - 16 },
        vehicles: [
          { year: 2019, make: "Toyota", model: "Camry", vin: null },
          { year: 2003, make: "Honda", model: "Accord", vin: "1HGCM82633A004352" },
        ],
        current_policy: { insured: true, carrier: "GEICO" },
        consent: { text: first.disclosure, timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/), ip: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$|^::1$/) },
      });
      const consentedAt = Date.parse((post!.body as { consent: { timestamp: string } }).consent.timestamp);
      expect(consentedAt).toBeGreaterThanOrEqual(first.sentAt - 1_000);
      expect(consentedAt).toBeLessThanOrEqual(first.answeredAt + 1_000);
      expect(post!.answer).toMatchObject({ status: 201 });
      expect(JSON.parse((post!.answer as { body: string }).body)).toEqual({ result: { accepted: true, id: "B-77", payout: "11.00" } });
    });

    it("records both sales at the buyers' own prices, with their lead ids", async () => {
      await settled(first.reference, ["acme", "bolt"]);
      const rows = await deliveries(first.reference);
      expect(rows.map((row) => row.target).sort()).toEqual(["acme", "bolt"]);
      expect(await buyerDelivery(first.reference, "acme")).toMatchObject({ status: "accepted", price: 14.25, saleType: "shared", buyerLeadId: "AC-1001", reason: null });
      expect(await buyerDelivery(first.reference, "bolt")).toMatchObject({ status: "accepted", price: 11, saleType: "shared", buyerLeadId: "B-77", reason: null });
      expect((await buyerDelivery(first.reference, "acme"))!.tries).toEqual([expect.objectContaining({ httpStatus: 200 })]);
      expect((await buyerDelivery(first.reference, "bolt"))!.tries).toEqual([expect.objectContaining({ httpStatus: 201 })]);
    });

    it("keeps each request as sent, masked: no credential, no contact detail", async () => {
      const acme = await buyerDelivery(first.reference, "acme");
      expect(acme!.requestSent?.url).toBe(`${stub.specUrl("acme")}?key=***`);
      const bolt = await buyerDelivery(first.reference, "bolt");
      const kept = JSON.stringify([acme!.requestSent, bolt!.requestSent]);
      for (const secret of ["acme-test-key-123", "bolt-test-token-456", first.email, first.phone10]) expect(kept).not.toContain(secret);
    });

    it("prints one line per request at the stub", () => {
      expect([...stubLines].sort()).toEqual([
        `acme accepted ${first.reference} as AC-1001 at $14.25`,
        `bolt accepted ${first.reference} as B-77 at $11.00`,
        "cobalt passed on a ping (90210 CA, 2 vehicles, 2 drivers)",
      ]);
    });
  });

  describe("lead 2: Cobalt bids; Acme and Bolt refuse it; the cascade sells it to Cobalt", () => {
    beforeAll(async () => {
      stub.reset();
      stubLines.length = 0;
      stub.scriptSpec("acme", [{ play: "duplicate", message: "Already have this consumer" }]);
      stub.scriptSpec("bolt", [{ play: "refused", message: "State not served" }]);
      second = await sendLead();
      // Acme and Bolt are posted whether or not Cobalt bids: their standing bids win the first round.
      await stub.waitForSpecRequests("acme", 1, 60_000);
      await stub.waitForSpecRequests("bolt", 1, 60_000);
    }, 150_000);

    it("pings Cobalt, which bids $9.75 as CP-9", () => {
      const [ping, ...more] = stub.specRequests("cobalt-ping");
      expect(more).toEqual([]);
      expect(ping!.body).toEqual({ zip: "90210", state: "CA", vehicle_count: 2, driver_count: 2, youngest_driver_age: youngest(), insured: true, homeowner: true, sr22: false });
      expectNoContact(ping!, second);
      expect(JSON.parse((ping!.answer as { body: string }).body)).toEqual({ status: "bid", bid_id: "CP-9", amount: 9.75 });
    });

    it("posts Acme and Bolt first (their $22 shared beats $9.75 exclusive), each refusing it", () => {
      expect(stub.specRequests("acme").map((request) => [request.reference, (request.answer as { body: string }).body])).toEqual([
        [second.reference, "<response><status>duplicate</status><message>Already have this consumer</message></response>"],
      ]);
      expect(stub.specRequests("bolt").map((request) => [request.reference, JSON.parse((request.answer as { body: string }).body) as unknown])).toEqual([
        [second.reference, { result: { accepted: false, why: "State not served" } }],
      ]);
    });

    it("records the two refusals with the buyers' reasons", async () => {
      await settled(second.reference, ["acme", "bolt"]);
      expect(await buyerDelivery(second.reference, "acme")).toMatchObject({ status: "rejected", reason: "Already have this consumer", buyerLeadId: null });
      expect(await buyerDelivery(second.reference, "bolt")).toMatchObject({ status: "rejected", reason: "State not served", buyerLeadId: null });
    });

    it("posts Cobalt the issue's JSON with the bid id from its ping's answer and its API key", async () => {
      await stub.waitForSpecRequests("cobalt-post", 1, 30_000);
      const [post, ...more] = stub.specRequests("cobalt-post");
      expect(more).toEqual([]);
      expect(post).toMatchObject({ method: "POST", path: "/specs/cobalt/post", query: {}, authorized: true, test: false });
      expect(post!.headers["x-api-key"]).toBe("cobalt-test-key-789");
      expect(post!.headers["content-type"]).toMatch(/^application\/json/);
      expect(post!.body).toEqual({ bid_id: "CP-9", first_name: "Ana", last_name: "O'Brien", phone: second.phone10, email: second.email, zip: "90210", dob: "04/15/1990" });
      expect(post!.answer).toEqual({ status: 200, body: '{"status":"sold"}' });
    });

    it("records Cobalt's bid and its exclusive sale at that price", async () => {
      await settled(second.reference, ["cobalt"]);
      expect(await buyerDelivery(second.reference, "cobalt")).toMatchObject({ status: "accepted", price: 9.75, saleType: "exclusive", bidId: "CP-9" });
      expect(await pings(second.reference)).toEqual([{ buyer_id: "cobalt", outcome: "bid", price: "9.75", sale_type: "exclusive", bid_id: "CP-9" }]);
      expect([...stubLines].sort()).toEqual([
        `acme refused ${second.reference}: duplicate (Already have this consumer)`,
        `bolt refused ${second.reference} (State not served)`,
        "cobalt bid $9.75 as CP-9 on a ping (90210 CA, 2 vehicles, 2 drivers)",
        "cobalt bought the lead of bid CP-9",
      ]);
    });
  });
});
