/**
 * The three example buyers of issue 43 as files and as the stub that plays them:
 * - deploy/buyer-specs/*.json are importable buyers files (the buyer schema takes them once a
 *   secret is there, which the import makes), exactly as the issue describes each buyer, with the
 *   specs of tools/buyer-spec-examples.ts, pointing at `npm run buyer-stub` on port 4100;
 * - the stub (tools/buyer-stub.ts) answers each in its own terms: Acme's key and XML, Bolt's bearer
 *   token and JSON, Cobalt's API key, bids and posts on a bid it made; ids counting up; scripted
 *   refusals; a wrong credential answered 401 without spending a scripted answer; every request
 *   recorded whole;
 * - and the two agree: a request rendered from each file's spec is what the stub takes, and its
 *   answers read, by the same spec's rules, as the issue says (accepted at $14.25 as AC-1001, …);
 * - docs/buyer-specs.md names every fact, format and outcome the engine knows.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buyersFileSchema, buyerSchema } from "../../server/delivery/buyers";
import { ANSWER_OUTCOMES, compileSpec, factCatalog, type CompiledHttpSpec, type RenderInput, type RequestSpec } from "../../server/delivery/spec";
import { DRIVER_FACTS, VEHICLE_FACTS } from "../../server/delivery/spec/facts";
import { BOOLEAN_SPELLINGS, DATE_FORMATS, PHONE_FORMATS } from "../../server/delivery/spec/transforms";
import { SPEC_ENDPOINTS, startBuyerStub, type BuyerStub, type SpecEndpoint } from "../../tools/buyer-stub";
import { projectRoot } from "../../tools/production-server";
import { ACME_POST, BOLT_POST, COBALT_PING, COBALT_POST, EXAMPLE_CONSENT_TEXT, EXAMPLE_CREDENTIALS, exampleInput } from "./buyer-spec-examples";

const FOLDER = path.join(projectRoot, "deploy", "buyer-specs");
const FILES = { acme: "acme-form-xml.json", bolt: "bolt-json.json", cobalt: "cobalt-pingpost.json" } as const;
const SECRET = "a-secret-the-import-would-make-0123456789";

type RawBuyer = Record<string, unknown> & { spec: { post?: unknown; ping?: unknown } };
function readFile(id: keyof typeof FILES): { buyers: RawBuyer[]; sources: unknown[] } {
  return JSON.parse(readFileSync(path.join(FOLDER, FILES[id]), "utf8")) as { buyers: RawBuyer[]; sources: unknown[] };
}
/** The file's buyer as the import stores it (a secret made for it), parsed by the buyer schema. */
function parsedBuyer(id: keyof typeof FILES) {
  return buyerSchema.parse({ ...readFile(id).buyers[0], secret: SECRET });
}

describe("the example buyer files (deploy/buyer-specs/)", () => {
  it("are buyers files of one buyer each, as the issue names and prices them, with its credentials", () => {
    const shapes = Object.fromEntries(
      (Object.keys(FILES) as (keyof typeof FILES)[]).map((id) => {
        const file = readFile(id);
        expect(file.sources).toEqual([]);
        expect(file.buyers).toHaveLength(1);
        const { spec: _spec, ...buyer } = file.buyers[0]!;
        return [id, buyer];
      }),
    );
    expect(shapes).toEqual({
      acme: { id: "acme", name: "Acme Auto Agents", url: "http://127.0.0.1:4100/specs/acme/leads", price: 12, credentials: { key: "acme-test-key-123" } },
      bolt: { id: "bolt", name: "Bolt Insurance Direct", url: "http://127.0.0.1:4100/specs/bolt/leads", price: 10, credentials: { token: "bolt-test-token-456" } },
      cobalt: {
        id: "cobalt",
        name: "Cobalt Exchange",
        mode: "pingpost",
        pingUrl: "http://127.0.0.1:4100/specs/cobalt/ping",
        postUrl: "http://127.0.0.1:4100/specs/cobalt/post",
        saleTypes: ["exclusive"],
        price: 0,
        credentials: { apiKey: "cobalt-test-key-789" },
      },
    });
    expect(EXAMPLE_CREDENTIALS).toEqual({ acme: shapes.acme!.credentials, bolt: shapes.bolt!.credentials, cobalt: shapes.cobalt!.credentials });
  });

  it("carry exactly the specs the engine's tests render (tools/buyer-spec-examples.ts)", () => {
    expect(readFile("acme").buyers[0]!.spec).toEqual({ post: ACME_POST });
    expect(readFile("bolt").buyers[0]!.spec).toEqual({ post: BOLT_POST });
    expect(readFile("cobalt").buyers[0]!.spec).toEqual({ ping: COBALT_PING, post: COBALT_POST });
  });

  it("point at the stub's endpoints for each buyer (npm run buyer-stub, port 4100)", () => {
    expect(parsedBuyer("acme").url).toBe(`http://127.0.0.1:4100${SPEC_ENDPOINTS.acme.path}`);
    expect(parsedBuyer("bolt").url).toBe(`http://127.0.0.1:4100${SPEC_ENDPOINTS.bolt.path}`);
    expect(parsedBuyer("cobalt").pingUrl).toBe(`http://127.0.0.1:4100${SPEC_ENDPOINTS["cobalt-ping"].path}`);
    expect(parsedBuyer("cobalt").url).toBe(`http://127.0.0.1:4100${SPEC_ENDPOINTS["cobalt-post"].path}`);
  });

  it("leave the secret to the import: it is the one thing the schema misses in each", () => {
    for (const id of Object.keys(FILES) as (keyof typeof FILES)[]) {
      const parsed = buyersFileSchema.safeParse(readFile(id));
      expect(parsed.success, id).toBe(false);
      expect(parsed.error?.issues.map((issue) => issue.path.join(".")), id).toEqual(["buyers.0.secret"]);
    }
  });

  it("parse with the buyers file's schema once the import has made the secrets, the three together too", () => {
    const buyers = (Object.keys(FILES) as (keyof typeof FILES)[]).map((id) => ({ ...readFile(id).buyers[0], secret: SECRET }));
    const parsed = buyersFileSchema.safeParse({ buyers, sources: [] });
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(parsed.data!.buyers.map((buyer) => [buyer.id, buyer.mode, buyer.saleTypes, buyer.price])).toEqual([
      ["acme", "post", ["shared"], 12],
      ["bolt", "post", ["shared"], 10],
      ["cobalt", "pingpost", ["exclusive"], 0],
    ]);
  });
});

describe("docs/buyer-specs.md", () => {
  const page = readFileSync(path.join(projectRoot, "docs", "buyer-specs.md"), "utf8");

  it("names every fact a spec may use", () => {
    const lead = factCatalog().map((fact) => fact.name).filter((name) => !/^(vehicle|driver)\.\d/.test(name));
    expect(lead.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
    const items = [...Object.keys(VEHICLE_FACTS), ...Object.keys(DRIVER_FACTS)];
    expect(items.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });

  it("names every transform's formats and every answer outcome", () => {
    for (const name of [...DATE_FORMATS, ...PHONE_FORMATS, ...BOOLEAN_SPELLINGS, ...ANSWER_OUTCOMES]) expect(page, name).toContain(`\`${name}\``);
  });
});

describe("the buyer stub's example buyers", () => {
  let stub: BuyerStub;
  const lines: string[] = [];

  beforeAll(async () => {
    stub = await startBuyerStub({ buyers: {}, log: (line) => lines.push(line) });
  });
  afterEach(() => {
    stub.reset();
    lines.length = 0;
  });
  afterAll(async () => {
    await stub.stop();
  });

  /** The spec of the file, compiled. */
  const compiled = (spec: RequestSpec | undefined): CompiledHttpSpec => {
    const result = compileSpec(spec!);
    if (result.format === "quoteridge") throw new Error("expected an HTTP spec");
    return result;
  };
  const SPECS = {
    acme: () => compiled(parsedBuyer("acme").spec?.post),
    bolt: () => compiled(parsedBuyer("bolt").spec?.post),
    "cobalt-ping": () => compiled(parsedBuyer("cobalt").spec?.ping),
    "cobalt-post": () => compiled(parsedBuyer("cobalt").spec?.post),
  } satisfies Record<SpecEndpoint, () => CompiledHttpSpec>;
  const CREDENTIALS = { acme: EXAMPLE_CREDENTIALS.acme, bolt: EXAMPLE_CREDENTIALS.bolt, "cobalt-ping": EXAMPLE_CREDENTIALS.cobalt, "cobalt-post": EXAMPLE_CREDENTIALS.cobalt };

  /** Renders the sample lead with the file's spec, sends it to the stub as the worker would, and reads the answer by the spec's rules. */
  async function exchange(endpoint: SpecEndpoint, input: RenderInput = exampleInput(), credentials: Record<string, string> = CREDENTIALS[endpoint]) {
    const spec = SPECS[endpoint]();
    const rendered = spec.render(input, { url: stub.specUrl(endpoint), credentials });
    if (!rendered.ok) throw new Error(`not rendered: ${JSON.stringify(rendered)}`);
    const { method, url, headers, body } = rendered.request;
    const response = await fetch(url, { method, headers, ...(body === null ? {} : { body }) });
    const text = await response.text();
    return { status: response.status, text, reading: spec.readAnswer({ status: response.status, body: text }) };
  }
  const pingInput = (overrides: Partial<RenderInput> = {}) => exampleInput({ pingId: "p_1", ...overrides });
  const postInput = (bidId: string) => exampleInput({ auction: { bidId, saleType: "exclusive" } });

  describe("Acme Auto Agents (form, key in the query, XML answers)", () => {
    it("takes the rendered form post and answers success with AC-1001 at 14.25, then AC-1002", async () => {
      const first = await exchange("acme");
      expect(first.status).toBe(200);
      expect(first.text).toBe("<response><status>success</status><lead_id>AC-1001</lead_id><price>14.25</price></response>");
      expect(first.reading).toEqual({ outcome: "accepted", rule: 0, price: 14.25, leadId: "AC-1001" });
      expect((await exchange("acme")).reading).toMatchObject({ outcome: "accepted", leadId: "AC-1002" });
      expect(lines).toEqual(["acme accepted LD-7K3M-Q9XD as AC-1001 at $14.25", "acme accepted LD-7K3M-Q9XD as AC-1002 at $14.25"]);
    });

    it("records the request whole: method, path, query with the key, headers, the raw form and its fields", async () => {
      await exchange("acme");
      const [request] = stub.specRequests("acme");
      expect(request).toMatchObject({ endpoint: "acme", buyerId: "acme", stage: "post", method: "POST", path: "/specs/acme/leads", query: { key: "acme-test-key-123" }, authorized: true, test: false, reference: "LD-7K3M-Q9XD", buyerLeadId: "AC-1001" });
      expect(request!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
      expect(request!.rawBody).toMatch(/^FirstName=Ana&LastName=O%27Brien&Email=ana.obrien%40example.com&Phone=4155550134&/);
      expect(request!.body).toEqual({
        FirstName: "Ana",
        LastName: "O'Brien",
        Email: "ana.obrien@example.com",
        Phone: "4155550134",
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
        TCPA_Text: EXAMPLE_CONSENT_TEXT,
        LeadID: "LD-7K3M-Q9XD",
        SubID: "a1",
      });
      expect(request!.answer).toEqual({ status: 200, body: "<response><status>success</status><lead_id>AC-1001</lead_id><price>14.25</price></response>" });
      expect(stub.specRequests()).toHaveLength(1);
    });

    it("answers a wrong key 401 without spending the scripted answer", async () => {
      stub.scriptSpec("acme", ["duplicate"]);
      const wrong = await exchange("acme", exampleInput(), { key: "not-the-key" });
      expect(wrong.status).toBe(401);
      expect(wrong.reading).toEqual({ outcome: "retry", rule: 3, reason: "Acme refused our key (HTTP 401)" });
      expect(stub.specRequests("acme")[0]).toMatchObject({ authorized: false, query: { key: "not-the-key" } });
      expect((await exchange("acme")).reading).toEqual({ outcome: "refused", rule: 1, reason: "Already have this consumer", leadId: null });
      expect(lines).toEqual(["acme refused LD-7K3M-Q9XD: wrong key (401)", "acme refused LD-7K3M-Q9XD: duplicate (Already have this consumer)"]);
    });

    it("plays scripted duplicate, rejected (with a message) and error answers, then success again", async () => {
      stub.scriptSpec("acme", ["duplicate", { play: "rejected", message: "Outside our area" }, "error"]);
      expect((await exchange("acme")).reading).toMatchObject({ outcome: "refused", reason: "Already have this consumer" });
      const rejected = await exchange("acme");
      expect(rejected.text).toBe("<response><status>rejected</status><message>Outside our area</message></response>");
      expect(rejected.reading).toMatchObject({ outcome: "refused", reason: "Outside our area" });
      expect((await exchange("acme")).reading).toEqual({ outcome: "retry", rule: 2, reason: null });
      // The id counts accepted leads only.
      expect((await exchange("acme")).reading).toMatchObject({ outcome: "accepted", leadId: "AC-1001", price: 14.25 });
    });

    it("sees a test lead by its TestLead field, and takes a scripted price", async () => {
      stub.scriptSpec("acme", [{ play: "success", price: 20 }]);
      expect((await exchange("acme", exampleInput({ test: true }))).reading).toMatchObject({ outcome: "accepted", price: 20 });
      expect(stub.specRequests("acme")[0]).toMatchObject({ test: true, body: expect.objectContaining({ TestLead: "1" }) });
      expect(lines).toEqual(["acme accepted LD-7K3M-Q9XD as AC-1001 at $20.00 [test]"]);
    });

    it("refuses a body that is not a form (415), which the rules read as an error, never a sale", async () => {
      const response = await fetch(`${stub.specUrl("acme")}?key=acme-test-key-123`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(response.status).toBe(415);
      expect(SPECS.acme().readAnswer({ status: 415, body: await response.text() }).outcome).toBe("error");
    });
  });

  describe("Bolt Insurance Direct (JSON, bearer token)", () => {
    it("takes the rendered JSON and answers 201 accepted with B-77 and a payout of 11.00, then B-78", async () => {
      const first = await exchange("bolt");
      expect(first.status).toBe(201);
      expect(JSON.parse(first.text)).toEqual({ result: { accepted: true, id: "B-77", payout: "11.00" } });
      expect(first.reading).toEqual({ outcome: "accepted", rule: 0, price: 11, leadId: "B-77" });
      expect((await exchange("bolt")).reading).toMatchObject({ leadId: "B-78" });
      const [request] = stub.specRequests("bolt");
      expect(request).toMatchObject({ method: "POST", path: "/specs/bolt/leads", query: {}, authorized: true, test: false, reference: "LD-7K3M-Q9XD", buyerLeadId: "B-77" });
      expect(request!.headers.authorization).toBe("Bearer bolt-test-token-456");
      expect(request!.headers["content-type"]).toBe("application/json");
      expect(request!.body).toMatchObject({ source: "quoteridge", external_id: "LD-7K3M-Q9XD", contact: { phone: "+14155550134" }, vehicles: [{ vin: null }, { vin: "1HGCM82633A004352" }] });
      expect(lines[0]).toBe("bolt accepted LD-7K3M-Q9XD as B-77 at $11.00");
    });

    it("answers a wrong token 401 (an error by the rules), and plays a refusal and a 503 when scripted", async () => {
      stub.scriptSpec("bolt", ["refused", "unavailable"]);
      const wrong = await exchange("bolt", exampleInput(), { token: "wrong" });
      expect(wrong.status).toBe(401);
      expect(wrong.reading.outcome).toBe("error");
      expect(stub.specRequests("bolt")[0]!.authorized).toBe(false);
      const refused = await exchange("bolt");
      expect(refused.status).toBe(200);
      expect(JSON.parse(refused.text)).toEqual({ result: { accepted: false, why: "State not served" } });
      expect(refused.reading).toEqual({ outcome: "refused", rule: 1, reason: "State not served", leadId: null });
      const unavailable = await exchange("bolt");
      expect(unavailable.status).toBe(503);
      expect(unavailable.reading).toMatchObject({ outcome: "retry" });
      expect((await exchange("bolt", exampleInput({ test: true }))).reading).toMatchObject({ outcome: "accepted", leadId: "B-77" });
      expect(stub.specRequests("bolt")[3]!.test).toBe(true);
      expect(lines).toEqual([
        "bolt refused LD-7K3M-Q9XD: wrong token (401)",
        "bolt refused LD-7K3M-Q9XD (State not served)",
        "bolt answered 503 to LD-7K3M-Q9XD",
        "bolt accepted LD-7K3M-Q9XD as B-77 at $11.00 [test]",
      ]);
    });
  });

  describe("Cobalt Exchange (ping/post, X-Api-Key)", () => {
    it("bids CP-9 at 9.75 on the rendered ping (no contact details in it), then CP-10", async () => {
      const ping = await exchange("cobalt-ping", pingInput());
      expect(JSON.parse(ping.text)).toEqual({ status: "bid", bid_id: "CP-9", amount: 9.75 });
      expect(ping.reading).toEqual({ outcome: "bid", rule: 0, price: 9.75, bidId: "CP-9" });
      expect((await exchange("cobalt-ping", pingInput())).reading).toMatchObject({ bidId: "CP-10" });
      const [request] = stub.specRequests("cobalt-ping");
      expect(request).toMatchObject({ buyerId: "cobalt", stage: "ping", path: "/specs/cobalt/ping", authorized: true, test: false, reference: undefined, buyerLeadId: "CP-9" });
      expect(request!.headers["x-api-key"]).toBe("cobalt-test-key-789");
      expect(request!.body).toEqual({ zip: "90210", state: "CA", vehicle_count: 2, driver_count: 2, youngest_driver_age: 36, insured: true, homeowner: true, sr22: false });
      expect(lines[0]).toBe("cobalt bid $9.75 as CP-9 on a ping (90210 CA, 2 vehicles, 2 drivers)");
    });

    it("buys the post of a bid it made, and rejects a post for a bid it never made", async () => {
      await exchange("cobalt-ping", pingInput());
      const sold = await exchange("cobalt-post", postInput("CP-9"));
      expect(JSON.parse(sold.text)).toEqual({ status: "sold" });
      expect(sold.reading).toEqual({ outcome: "accepted", rule: 0, price: null, leadId: null });
      expect(stub.specRequests("cobalt-post")[0]).toMatchObject({
        path: "/specs/cobalt/post",
        body: { bid_id: "CP-9", first_name: "Ana", last_name: "O'Brien", phone: "4155550134", email: "ana.obrien@example.com", zip: "90210", dob: "04/15/1990" },
      });
      const unknown = await exchange("cobalt-post", postInput("CP-99"));
      expect(unknown.reading).toEqual({ outcome: "refused", rule: 1, reason: "unknown bid_id CP-99", leadId: null });
      expect(lines.slice(1)).toEqual(["cobalt bought the lead of bid CP-9", "cobalt rejected a post for a bid it never made (CP-99)"]);
    });

    it("plays no_bid and a rejected post when scripted; a wrong key gets 401 (not a bid)", async () => {
      stub.scriptSpec("cobalt-ping", ["no_bid"]);
      stub.scriptSpec("cobalt-post", [{ play: "rejected", message: "Consumer already bought" }]);
      expect((await exchange("cobalt-ping", pingInput(), { apiKey: "wrong" })).reading.outcome).toBe("error");
      expect((await exchange("cobalt-ping", pingInput())).reading).toEqual({ outcome: "no_bid", rule: 1, reason: null });
      expect((await exchange("cobalt-ping", pingInput({ test: true }))).reading).toMatchObject({ outcome: "bid", bidId: "CP-9" });
      expect(stub.specRequests("cobalt-ping").map((request) => [request.authorized, request.test])).toEqual([[false, false], [true, false], [true, true]]);
      expect((await exchange("cobalt-post", postInput("CP-9"))).reading).toEqual({ outcome: "refused", rule: 1, reason: "Consumer already bought", leadId: null });
    });
  });

  it("plays any HTTP answer, a hang or a dropped connection when scripted, and lists what arrived on GET /received", async () => {
    stub.scriptSpec("bolt", [{ status: 500, body: "oops" }, "close"]);
    const failed = await exchange("bolt");
    expect([failed.status, failed.text, failed.reading.outcome]).toEqual([500, "oops", "retry"]);
    await expect(exchange("bolt")).rejects.toThrow();
    const received = (await (await fetch(`${stub.origin}/received?buyer=bolt`)).json()) as { specs: { endpoint: string; answer: unknown }[]; leads: unknown[] };
    expect(received.leads).toEqual([]);
    expect(received.specs.map((request) => [request.endpoint, request.answer])).toEqual([["bolt", { status: 500, body: "oops" }], ["bolt", "close"]]);
    expect((await fetch(stub.specUrl("bolt"))).status).toBe(405);
  });

  it("queues answers sent to POST /script/<endpoint>, for trials by hand, and refuses one the buyer does not give", async () => {
    const script = (endpoint: string, body: unknown) => fetch(`${stub.origin}/script/${endpoint}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const queued = await script("bolt", ["refused", { play: "accepted", price: 8 }]);
    expect([queued.status, await queued.json()]).toEqual([200, { queued: 2 }]);
    expect((await exchange("bolt")).reading).toMatchObject({ outcome: "refused", reason: "State not served" });
    expect((await exchange("bolt")).reading).toMatchObject({ outcome: "accepted", price: 8, leadId: "B-77" });
    expect((await script("bolt", ["duplicate"])).status).toBe(400);
    expect((await script("bolt", { play: "refused" })).status).toBe(400);
    expect((await script("nobody", ["refused"])).status).toBe(404);
    expect((await exchange("bolt")).reading).toMatchObject({ outcome: "accepted", leadId: "B-78" });
  });

  it("waits for requests, and keeps our own buyers' leads apart (a quoteridge buyer may also be called acme)", async () => {
    const waiting = stub.waitForSpecRequests("acme", 1, 5_000);
    await exchange("acme");
    expect(await waiting).toHaveLength(1);
    expect(stub.received("acme")).toEqual([]);
  });
});

