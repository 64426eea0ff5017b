/**
 * "Send a test lead" from a buyer's console page, and a lead's page showing each delivery's request
 * as sent and the buyer's lead id (issue 43, item 5), through the real admin app, the real React
 * renderer and a real buyer stub (tools/buyer-stub.ts) playing Acme, Cobalt and one of our own
 * signed-JSON buyers: the test lead reaches the buyer marked as a test, in its spec's fields; the
 * page shows the masked request, the raw answer (escaped) and how the answer rules read it
 * (accepted, refused, no rule matched; a ping's bid); a refused address says why; analysts get
 * 403 and no button; CSRF; one at a time per buyer and a few a minute per user (429).
 */
import path from "node:path";
import { parse as parseHtml } from "node-html-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../server/admin/app";
import { analyticsReports } from "../../server/admin/reports";
import { renderAdminFrom } from "../../server/admin/render-source";
import { loadProductionBuild } from "../../server/pages/render-source";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import { openSettingsDirectory, type SettingsDirectory } from "../../server/settings/directory";
import { setOutboundPolicy } from "../../server/delivery/http-send";
import { NO_EXCEPTIONS } from "../../server/delivery/outbound";
import { verifySignature } from "../../server/delivery/signature";
import { createDeliveryWorker } from "../../server/delivery/worker";
import { createAuctioneer, newAuction } from "../../server/auction/auctions";
import type { AdminView, BuyerDetailView, LeadsView } from "../../shared/admin-views";
import { ACME_POST, COBALT_PING, COBALT_POST, EXAMPLE_CREDENTIALS } from "../../tools/buyer-spec-examples";
import { startBuyerStub, type BuyerStub } from "../../tools/buyer-stub";
import { projectRoot } from "../../tools/production-server";
import { sampleNewLead } from "../../tools/lead-session";
import { allStores, type TestDatabase } from "../support/databases";
import type { LogLine } from "../support/app";
import { captureLogs } from "../support/log-capture";
import { adminRequests, capturingRenderAdmin, csrfOf, jar, type Agent, type Form, addUsers } from "../support/admin-agent";

const SECRET = "test-lead-secret-test-lead-secret-test-lead";
const OPS = { name: "olivia", password: "olivia's long password" };
const ANALYST = { name: "andy", password: "andy's long password!" };
const OTHER_OPS = { name: "oscar", password: "oscar's long password!" };


describe.each(allStores())("sending a test lead and seeing what a delivery sent ($kind)", (store) => {
  let db: TestDatabase;
  let settings: SettingsDirectory;
  let stub: BuyerStub;
  let app: ReturnType<typeof createAdminApp>;
  /** The same console with a budget of two test leads a minute per user. */
  let tightApp: ReturnType<typeof createAdminApp>;
  let logs: LogLine[] = [];
  let rawLogs: string[] = [];
  let captured: ReturnType<typeof captureLogs>;
  const views: AdminView[] = [];
  let ops: { agent: Agent; csrf: string };
  let analyst: { agent: Agent; csrf: string };
  /** Our own signed-JSON buyer's secret, shown once when it was created. */
  let harborSecret = "";

  const lastView = <V extends AdminView>(page: V["page"]): V => {
    const view = [...views].reverse().find((candidate) => candidate.page === page);
    if (!view) throw new Error(`no ${page} view rendered`);
    return view as V;
  };
  const actions = (action: string) => logs.filter((line) => line.event === "admin_action" && line.action === action);

  const { get, post, signedIn } = adminRequests(() => app);
  const revisionOf = async (id: string) => {
    await get(ops.agent, `/buyers/${id}`);
    return String(lastView<BuyerDetailView>("buyer").revision);
  };
  async function createBuyer(form: Form, credentials: Record<string, string> = {}, spec: Form = {}) {
    const created = await post(ops.agent, "/buyers", { mode: "post", price: "12", ...form, _csrf: ops.csrf });
    expect(created.status, created.text.slice(0, 400)).toBe(201);
    const secret = lastView<BuyerDetailView>("buyer").oneTimeSecret!.secret;
    const id = String(form.id);
    for (const [name, value] of Object.entries(credentials)) expect((await post(ops.agent, `/buyers/${id}/credentials`, { name, value, _csrf: ops.csrf })).status).toBe(303);
    if (Object.keys(spec).length > 0) expect((await post(ops.agent, `/buyers/${id}/spec`, { revision: await revisionOf(id), ...spec, _csrf: ops.csrf })).status).toBe(303);
    return secret;
  }
  const sendTest = (id: string, as = ops, on = app) => post(as.agent, `/buyers/${id}/test-lead`, { _csrf: as.csrf }, on);
  const testLeadView = () => lastView<BuyerDetailView>("buyer").testLead!;

  beforeAll(async () => {
    db = await store.open();
    await registerDisclosure(db.builder, disclosureFor(undefined));
    await addUsers(db, [{ ...OPS, role: "ops" }, { ...ANALYST, role: "analyst" }, { ...OTHER_OPS, role: "ops" }]);
    captured = captureLogs({ LOG_LEVEL: "debug", NODE_ENV: "test" });
    logs = captured.lines;
    rawLogs = captured.raw;
    stub = await startBuyerStub({ buyers: {}, anyBuyerSecret: "not-the-buyers-secret", enforceSignature: false });
    settings = await openSettingsDirectory({ db: db.builder, logger: captured.logger, pollMs: 60_000 });
    const renderAdmin = capturingRenderAdmin(renderAdminFrom((await loadProductionBuild(path.join(projectRoot, "dist"))).source), views);
    const common = { logger: captured.logger, db, renderAdmin, secret: SECRET, reports: analyticsReports, settings, config: { ADMIN_SESSION_HOURS: 12, REPORT_TIME_ZONE: "America/New_York", NODE_ENV: "test" as const } };
    app = createAdminApp({ ...common, testLeadsPerMinute: 100 });
    tightApp = createAdminApp({ ...common, testLeadsPerMinute: 2 });
    ops = await signedIn(OPS);
    analyst = await signedIn(ANALYST);
    const json = (value: unknown) => JSON.stringify(value, null, 2);
    await createBuyer({ id: "acme", name: "Acme Auto Agents", url: stub.specUrl("acme") }, { key: EXAMPLE_CREDENTIALS.acme.key }, { "spec.post": json(ACME_POST) });
    await createBuyer(
      { id: "cobalt", name: "Cobalt Exchange", mode: "pingpost", pingUrl: stub.specUrl("cobalt-ping"), url: stub.specUrl("cobalt-post"), saleTypes: ["exclusive"] },
      { apiKey: EXAMPLE_CREDENTIALS.cobalt.apiKey },
      { "spec.post": json(COBALT_POST), "spec.ping": json(COBALT_PING) },
    );
    harborSecret = await createBuyer({ id: "harbor", name: "Harbor Insurance", url: stub.url("harbor") });
  });
  afterAll(async () => {
    settings?.stop();
    await stub?.stop();
    await db?.close();
  });

  describe("send a test lead (ops)", () => {
    it("posts a test lead to a spec buyer in its own terms, marked as a test, and shows the masked request, the raw answer and its reading", async () => {
      const before = stub.specRequests("acme").length;
      const page = await get(ops.agent, "/buyers/acme");
      const button = parseHtml(page.text).querySelector('form[action="/buyers/acme/test-lead#test-lead"] button');
      expect(button?.text.trim()).toBe("Send a test lead to Acme Auto Agents");

      const response = await sendTest("acme");
      expect(response.status).toBe(200);
      const received = stub.specRequests("acme");
      expect(received.length).toBe(before + 1);
      const sent = received.at(-1)!;
      expect(sent).toMatchObject({ authorized: true, test: true, query: { key: EXAMPLE_CREDENTIALS.acme.key } });
      const body = sent.body as Record<string, string>;
      expect(body.TestLead).toBe("1");
      expect(body.LeadID).toMatch(/^LD-TEST-[0-9A-Z]{4}$/);
      expect(body).toMatchObject({ Phone: "2015550199", State: "CA", V1_Ownership: "Owned", Insured: "Y" });

      const view = testLeadView();
      expect(view.reference).toBe(body.LeadID);
      expect(view.exchanges.map((exchange) => exchange.stage)).toEqual(["post"]);
      const [exchange] = view.exchanges;
      expect(exchange!.reading).toMatchObject({ kind: "accepted", price: 14.25, buyerLeadId: expect.stringMatching(/^AC-\d+$/) });
      expect(exchange!.reading.text).toMatch(/^Accepted at \$14\.25, their lead id AC-\d+\.$/);
      expect(exchange!.answer).toMatchObject({ status: 200, headers: expect.arrayContaining([{ name: "content-type", value: expect.stringContaining("xml") }]), truncated: false });
      expect(exchange!.answer!.body).toContain("<status>success</status>");
      // The request as sent, masked: no credential, no contact in clear.
      const shown = JSON.stringify(exchange!.request);
      expect(exchange!.request!.url).toMatch(/\?key=/);
      for (const clear of [EXAMPLE_CREDENTIALS.acme.key, "2015550199", "test-lead@example.com", "123 Test Lead St"]) expect(shown, clear).not.toContain(clear);
      expect(new URLSearchParams(exchange!.request!.body!).get("TestLead")).toBe("1");

      // The page: the reading, the masked request, the raw answer escaped.
      const document = parseHtml(response.text);
      expect(document.querySelector('[data-stage="post"] .test-reading')?.text).toMatch(/Accepted at \$14\.25, their lead id AC-/);
      expect(document.querySelector(".test-exchange .masked-request")?.text).toContain("LD-TEST-");
      expect(response.text).toContain("&lt;status&gt;success&lt;/status&gt;");
      expect(response.text).not.toContain("<status>success</status>");
      expect(response.text).not.toContain(EXAMPLE_CREDENTIALS.acme.key);

      const logged = actions("send_test_lead").at(-1);
      expect(logged).toMatchObject({ user: OPS.name, target: "acme", outcome: "done", post: "accepted", httpStatus: 200, reference: body.LeadID });
      // Never the body, sent or answered.
      expect(JSON.stringify(logged)).not.toContain("success");
      expect(rawLogs.join("")).not.toContain("<status>success</status>");
      expect(rawLogs.join("")).not.toContain(EXAMPLE_CREDENTIALS.acme.key);
    });

    it("reads a scripted refusal as refused with its reason, and an answer no rule reads as an error", async () => {
      stub.scriptSpec("acme", [{ play: "rejected", message: "Already have this consumer" }]);
      const refused = await sendTest("acme");
      expect(refused.status).toBe(200);
      expect(testLeadView().exchanges[0]!.reading).toMatchObject({ kind: "refused", text: "Refused: Already have this consumer." });
      expect(parseHtml(refused.text).querySelector(".test-reading")?.text).toContain("Refused: Already have this consumer.");
      expect(actions("send_test_lead").at(-1)).toMatchObject({ target: "acme", post: "refused" });

      stub.scriptSpec("acme", [{ status: 200, body: "<html><b>Maintenance</b> & more</html>", headers: { "content-type": "text/html" } }]);
      const unreadable = await sendTest("acme");
      expect(unreadable.status).toBe(200);
      const exchange = testLeadView().exchanges[0]!;
      expect(exchange.reading.kind).toBe("error");
      expect(exchange.reading.text).toMatch(/no answer rule/);
      expect(exchange.answer).toMatchObject({ status: 200, body: "<html><b>Maintenance</b> & more</html>" });
      expect(parseHtml(unreadable.text).querySelector(".test-reading")?.text).toMatch(/no answer rule/);
      expect(unreadable.text).toContain("&lt;html&gt;&lt;b&gt;Maintenance&lt;/b&gt; &amp; more");
      expect(actions("send_test_lead").at(-1)).toMatchObject({ target: "acme", post: "error" });
    });

    it("sends our own signed JSON to a quoteridge buyer, as a test lead by the test phone number", async () => {
      const before = stub.received("harbor").length;
      const response = await sendTest("harbor");
      expect(response.status).toBe(200);
      const got = stub.received("harbor");
      expect(got.length).toBe(before + 1);
      const lead = got.at(-1)!;
      expect(verifySignature(harborSecret, lead.headers["x-signature"] as string, lead.rawBody)).toBe("ok");
      const payload = lead.json as { reference: string; sale: boolean; lead: { phone: string; email: string } };
      expect(payload.reference).toMatch(/^LD-TEST-/);
      expect(payload.lead.phone).toBe("+12015550199");
      expect(lead.headers["x-lead-reference"]).toBe(payload.reference);

      const exchange = testLeadView().exchanges[0]!;
      expect(exchange.format).toContain("quoteridge");
      expect(exchange.reading).toMatchObject({ kind: "accepted", price: null });
      expect(exchange.request!.headers).toContainEqual({ name: "X-Signature", value: "***" });
      const shown = JSON.stringify(exchange.request);
      for (const clear of ["test-lead@example.com", "2015550199", "123 Test Lead St", lead.headers["x-signature"] as string]) expect(shown, clear).not.toContain(clear);
      expect(parseHtml(response.text).querySelector(".test-reading")?.text).toContain("Accepted");
    });

    it("pings a ping/post buyer first, then posts with the bid's id", async () => {
      const response = await sendTest("cobalt");
      expect(response.status).toBe(200);
      const ping = stub.specRequests("cobalt-ping").at(-1)!;
      expect(ping).toMatchObject({ authorized: true, test: true });
      expect(ping.headers["x-test"]).toBe("1");
      const posted = stub.specRequests("cobalt-post").at(-1)!;
      expect(posted).toMatchObject({ authorized: true, test: true });
      const [pingView, postView] = testLeadView().exchanges;
      expect(pingView!.reading).toMatchObject({ kind: "bid", price: 9.75, bidId: expect.stringMatching(/^CP-\d+$/) });
      expect(pingView!.reading.text).toMatch(/^Bid \$9\.75, bid id CP-\d+\.$/);
      expect((posted.body as { bid_id: string }).bid_id).toBe(pingView!.reading.bidId);
      expect(postView!.reading.kind).toBe("accepted");
      expect(JSON.stringify(testLeadView())).not.toContain(EXAMPLE_CREDENTIALS.cobalt.apiKey);
      expect(actions("send_test_lead").at(-1)).toMatchObject({ target: "cobalt", ping: "bid", post: "accepted" });

      stub.scriptSpec("cobalt-ping", ["no_bid"]);
      const postsBefore = stub.specRequests("cobalt-post").length;
      await sendTest("cobalt");
      const [noBid, notPosted] = testLeadView().exchanges;
      expect(noBid!.reading.kind).toBe("no_bid");
      expect(notPosted!.reading).toMatchObject({ kind: "not_sent", text: expect.stringContaining("Not posted") });
      expect(stub.specRequests("cobalt-post").length).toBe(postsBefore);
    });

    it("shows why an address the outbound policy refuses was not reached", async () => {
      const before = stub.specRequests("acme").length;
      setOutboundPolicy({ enforce: true, allow: NO_EXCEPTIONS }, captured.logger);
      try {
        const response = await sendTest("acme");
        expect(response.status).toBe(200);
        const exchange = testLeadView().exchanges[0]!;
        expect(exchange.answer).toBeNull();
        expect(exchange.transportError).toMatch(/^refused: /);
        expect(exchange.reading).toMatchObject({ kind: "error", text: expect.stringMatching(/^No answer: refused: /) });
        expect(parseHtml(response.text).querySelector(".test-transport")?.text).toMatch(/No answer: refused: /);
      } finally {
        setOutboundPolicy({ enforce: false, allow: NO_EXCEPTIONS }, captured.logger);
      }
      expect(stub.specRequests("acme").length).toBe(before);
    });
  });

  describe("who may send one, and how often", () => {
    it("shows analysts no button and answers 403 to their post; refuses a post without the session's CSRF token", async () => {
      const before = stub.specRequests("acme").length;
      const page = await get(analyst.agent, "/buyers/acme");
      expect(page.status).toBe(200);
      expect(parseHtml(page.text).querySelector('form[action^="/buyers/acme/test-lead"]')).toBeNull();
      expect(page.text).not.toContain("Send a test lead");
      expect((await sendTest("acme", analyst)).status).toBe(403);
      expect((await post(ops.agent, "/buyers/acme/test-lead", {})).status).toBe(403);
      expect((await post(ops.agent, "/buyers/acme/test-lead", { _csrf: "not-the-token" })).status).toBe(403);
      expect(stub.specRequests("acme").length).toBe(before);
      expect((await sendTest("nosuch")).status).toBe(404);
    });

    it("sends one test lead at a time to a buyer (429 to the second while the first waits for its answer)", async () => {
      stub.scriptSpec("acme", [{ play: "success", delayMs: 400 }]);
      const before = stub.specRequests("acme").length;
      const first = sendTest("acme");
      await stub.waitForSpecRequests("acme", before + 1);
      const second = await sendTest("acme");
      expect(second.status).toBe(429);
      expect(second.headers["retry-after"]).toBeDefined();
      expect(parseHtml(second.text).querySelector(".flash, [role=alert], [role=status]")?.text ?? second.text).toContain("being sent already");
      expect((await first).status).toBe(200);
      expect(stub.specRequests("acme").length).toBe(before + 1);
      expect(actions("send_test_lead").filter((line) => line.outcome === "rate_limited").map((line) => [line.user, line.target])).toEqual([[OPS.name, "acme"]]);
    });

    it("allows a user only a few test leads a minute (429 with a clear message)", async () => {
      const oscar = await (async () => {
        const agent = jar();
        const signIn = await get(agent, "/sign-in", tightApp);
        expect((await post(agent, "/sign-in", { ...OTHER_OPS, _csrf: csrfOf(signIn.text) }, tightApp)).status).toBe(303);
        return { agent, csrf: csrfOf((await get(agent, "/buyers", tightApp)).text) };
      })();
      expect((await sendTest("harbor", oscar, tightApp)).status).toBe(200);
      expect((await sendTest("acme", oscar, tightApp)).status).toBe(200);
      const before = stub.received("harbor").length;
      const third = await sendTest("harbor", oscar, tightApp);
      expect(third.status).toBe(429);
      expect(third.text).toContain("You have sent 2 test leads in the last minute, the most allowed");
      expect(stub.received("harbor").length).toBe(before);
      expect(actions("send_test_lead").at(-1)).toMatchObject({ user: OTHER_OPS.name, target: "harbor", outcome: "rate_limited" });
    });
  });

  describe("a lead's page (issue 43, item 5)", () => {
    it("shows each ping's request as sent (masked) and its answer's excerpt, to ops only", async () => {
      const current = settings.current();
      const cobaltOnly = { ...current, buyers: current.buyers.filter((buyer) => buyer.id === "cobalt") };
      const disclosure = await registerDisclosure(db.builder, disclosureFor(cobaltOnly.buyers));
      const now = new Date();
      const result = await leadStore(leadRepository(db)).create(
        sampleNewLead({ receivedAt: now, consent: { disclosureVersion: disclosure.version, disclosureSha256: disclosure.sha256 } }),
        () => ({ deliveries: [], auction: newAuction({ test: false, floor: 0 }) }),
      );
      if (!result.created) throw new Error("expected a new lead");
      stub.scriptSpec("cobalt-ping", ["no_bid"]);
      await createAuctioneer({ db, buyers: () => cobaltOnly, logger: captured.logger, deadlineMs: 2_000 }).runOnce();

      await get(ops.agent, `/leads?reference=${result.reference}`);
      const ping = lastView<LeadsView>("leads").auction!.pings.find((candidate) => candidate.buyerId === "cobalt")!;
      expect(ping.outcome).toBe("no_bid");
      expect(ping.requestSent).toMatchObject({ method: "POST", url: stub.specUrl("cobalt-ping") });
      expect(JSON.stringify(ping.requestSent)).not.toContain(EXAMPLE_CREDENTIALS.cobalt.apiKey);
      expect(ping.excerpt).toContain("no_bid");
      await get(analyst.agent, `/leads?reference=${result.reference}`);
      expect(lastView<LeadsView>("leads").auction!.pings.find((candidate) => candidate.buyerId === "cobalt")).toMatchObject({ outcome: "no_bid", requestSent: null, excerpt: null });
    });

    it("shows each delivery's buyer lead id beside ours and the masked request as sent, to ops only", async () => {
      const result = await leadStore(leadRepository(db)).create(sampleNewLead({ sid: "fb01" }), (lead) => ({
        deliveries: [{ kind: "buyer", target: "acme", idempotencyKey: `${lead.reference}:acme`, sale: true, price: 12, url: null, capDay: null, dueAt: new Date() }],
      }));
      if (!result.created) throw new Error("expected a new lead");
      const reference = result.reference;
      const stored = await leadRepository(db).findByReference(reference);
      const worker = createDeliveryWorker({ db, buyers: () => settings.current(), logger: captured.logger });
      expect(await worker.runOnce()).toBeGreaterThanOrEqual(1);

      const page = await get(ops.agent, `/leads?reference=${reference}`);
      expect(page.status).toBe(200);
      const delivery = lastView<LeadsView>("leads").deliveries.find((candidate) => candidate.target === "acme")!;
      expect(delivery).toMatchObject({ status: "accepted", buyerLeadId: expect.stringMatching(/^AC-\d+$/) });
      expect(delivery.requestSent).toMatchObject({ method: "POST", url: expect.stringMatching(/\?key=/) });
      expect(new URLSearchParams(delivery.requestSent!.body!).get("LeadID")).toBe(reference);
      const shown = JSON.stringify(delivery.requestSent);
      const digits = stored!.phone.replace(/\D/g, "").slice(-10);
      for (const clear of [EXAMPLE_CREDENTIALS.acme.key, stored!.email, digits]) expect(shown, clear).not.toContain(clear);
      expect(delivery.attempts[0]!.excerpt).toContain("success");

      const document = parseHtml(page.text);
      expect(document.querySelector(".buyer-lead-id")?.text).toBe(`${delivery.buyerLeadId} (ours: ${reference})`);
      const details = document.querySelector("details.request-sent");
      expect(details?.querySelector("summary")?.text).toBe("Request as sent (masked)");
      expect(details?.querySelector(".masked-request")?.text).toContain(`LeadID=${reference}`);
      expect(page.text).not.toContain(EXAMPLE_CREDENTIALS.acme.key);

      // Analysts: the deliveries, without the buyer's words or the request (its contact is masked, but they see none).
      const analystPage = await get(analyst.agent, `/leads?reference=${reference}`);
      expect(analystPage.status).toBe(200);
      const theirs = lastView<LeadsView>("leads").deliveries.find((candidate) => candidate.target === "acme")!;
      expect(theirs).toMatchObject({ status: "accepted", buyerLeadId: null, requestSent: null });
      expect(parseHtml(analystPage.text).querySelector("details.request-sent")).toBeNull();
    });
  });
});
