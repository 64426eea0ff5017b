/**
 * The console's lead page, its "Offers by buyer" section (issue 33, item 4; server/admin/buyer-offers-view.ts):
 * for each configured buyer, offered or the rule that excluded the stored lead, by the evaluator
 * delivery and the auction use, with what the records show beside it; through the real admin app
 * and the real React renderer, on both stores.
 */
import path from "node:path";
import request from "supertest";
import { parse as parseHtml } from "node-html-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../server/admin/app";
import { analyticsReports } from "../../server/admin/reports";
import { renderAdminFrom } from "../../server/admin/render-source";
import { adminUserRepository } from "../../server/admin/users";
import { hashPassword } from "../../server/admin/passwords";
import { loadProductionBuild } from "../../server/pages/render-source";
import { buyersFileSchema } from "../../server/delivery/buyers";
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { leadRepository } from "../../server/db/leads";
import { leadStore } from "../../server/leads/store";
import type { AdminView, LeadsView } from "../../shared/admin-views";
import { projectRoot } from "../../tools/production-server";
import { sampleNewLead } from "../../tools/lead-session";
import { allStores, type TestDatabase } from "../support/databases";
import { captureLogs } from "../support/log-capture";
import { capturingRenderAdmin, cookieHeader, csrfOf, jar, remember, type Agent } from "../support/admin-agent";
import { fixedSettings } from "../support/settings";

const SECRET = "offers-test-secret-offers-test-secret!!";
const OPS = { name: "olivia", password: "olivia's long password" };
const buyer = (id: string, extra: Record<string, unknown> = {}) => ({ id, name: `${id[0]!.toUpperCase()}${id.slice(1)} Insurance`, url: `https://buyer.example/${id}`, secret: `${id}-secret-0123456789abcdef0123456789`, price: 10, ...extra });
const BUYERS = buyersFileSchema.parse({
  buyers: [
    buyer("acme", { filters: { zips: { exclude: ["90210"] } } }),
    buyer("bolt", { filters: { driverAge: { max: 30 } } }),
    buyer("crest", { states: ["CA"], filters: { maxAccidents: 1, coverage: ["standard"] } }),
    buyer("dawn", { sandbox: true }),
    buyer("echo"),
  ],
});


describe.each(allStores())("the lead page's offers by buyer ($kind)", (store) => {
  let db: TestDatabase;
  let app: ReturnType<typeof createAdminApp>;
  const views: AdminView[] = [];
  const agent: Agent = jar();
  const get = async (url: string) => {
    const response = await request(app).get(url).set("Cookie", cookieHeader(agent));
    remember(agent, response);
    return response;
  };

  beforeAll(async () => {
    db = await store.open();
    await adminUserRepository(db).create({ name: OPS.name, role: "ops", passwordHash: await hashPassword(OPS.password) });
    const capturing = capturingRenderAdmin(renderAdminFrom((await loadProductionBuild(path.join(projectRoot, "dist"))).source), views);
    app = createAdminApp({ config: { ADMIN_SESSION_HOURS: 12, REPORT_TIME_ZONE: "America/New_York", NODE_ENV: "production" }, logger: captureLogs({ LOG_LEVEL: "warn", NODE_ENV: "production" }).logger, db, renderAdmin: capturing, secret: SECRET, reports: analyticsReports, settings: fixedSettings(BUYERS) });
    const signIn = await get("/sign-in");
    const signedIn = await request(app).post("/sign-in").set("Cookie", cookieHeader(agent)).type("form").send({ ...OPS, _csrf: csrfOf(signIn.text) });
    remember(agent, signedIn);
    expect(signedIn.status).toBe(303);
  });
  afterAll(() => db.close());

  it("shows each buyer offered or excluded, the rule in ops' words, and what the records show", async () => {
    // The visitor agreed to a disclosure naming acme, bolt and crest (never the sandbox buyer; echo came later).
    const disclosure = await registerDisclosure(db.builder, disclosureFor(BUYERS.buyers.filter((one) => ["acme", "bolt", "crest"].includes(one.id))));
    const created = await leadStore(leadRepository(db)).create(sampleNewLead({ consent: { disclosureVersion: disclosure.version, disclosureSha256: disclosure.sha256 } }), (lead) => ({
      deliveries: [{ kind: "buyer", target: "crest", idempotencyKey: `${lead.reference}:crest`, sale: true, price: 10, url: null, capDay: null }],
    }));
    if (!created.created) throw new Error("expected a new lead");
    const stored = (await leadRepository(db).findByReference(created.reference))!;

    const response = await get(`/leads?reference=${created.reference}`);
    expect(response.status).toBe(200);
    const view = [...views].reverse().find((one): one is LeadsView => one.page === "leads")!;
    expect(view.offers?.at).toBe(stored.receivedAt.toISOString());
    expect(view.offers?.buyers.map((one) => [one.buyerId, one.offered, one.rule, one.reason, one.recorded])).toEqual([
      ["acme", false, "zip", "ZIP 90210 is excluded", null],
      ["bolt", false, "driverAge", expect.stringMatching(/^oldest driver 3\d is over 30$/), null],
      // The sample household has 1 accident in all and wants standard coverage: crest takes it, and its delivery is there.
      ["crest", true, null, null, "delivery pending"],
      ["dawn", false, "sandbox", "a real lead: a sandbox buyer takes test leads only", null],
      ["echo", false, "consent", "not named in the consent the visitor agreed to", null],
    ]);

    const table = parseHtml(response.text).querySelectorAll("table").find((candidate) => candidate.querySelector("caption")?.text === "Offered or excluded, per buyer");
    const rows = table?.querySelectorAll("tbody tr").map((row) => row.querySelectorAll("th, td").map((cell) => cell.text));
    expect(rows?.[0]).toEqual(["Acme Insurance acme", "fixed price", "Excluded", "ZIP 90210 is excluded (zip)", "—"]);
    expect(rows?.[2]).toEqual(["Crest Insurance crest", "fixed price", "Offered", "—", "delivery pending"]);
    expect(response.text).toContain("Daily caps are applied when the lead is offered");
  });
});
