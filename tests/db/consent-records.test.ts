/**
 * Consent proof in the database, on both stores (embedded PGlite and PostgreSQL): the consent
 * record keeps the certificate's facts for its own 5 years (the lead goes after 3), a certificate
 * is found only for a buyer the lead was delivered to, and the disclosure versions are the
 * database's (one per distinct text, max + 1, agreed on by replicas starting together), with the
 * start-up refusal of changed words under an old wording version.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../server/db/database";
import { migrate } from "../../server/db/migrate";
import { migrations } from "../../server/db/migrations";
import { DisclosureMismatchError, leadRepository, type LeadRepository } from "../../server/db/leads";
import { leadStore, type NewLead } from "../../server/leads/store";
import { registerDisclosure } from "../../server/consent/disclosures";
import { certificateIdOf, findCertificateForBuyer } from "../../server/consent/records";
import { CERTIFICATE_ID_PATTERN } from "../../server/consent/certificate-id";
import { disclosureFor, sha256Hex, type NamedBuyer } from "../../server/leads/disclosure";
import { createLeadCapture } from "../../server/leads/capture";
import { retentionCutoffs } from "../../server/leads/retention";
import { CONSENT_DISCLOSURE, CONSENT_DISCLOSURE_SHA256, CONSENT_TEMPLATE_V1, consentTemplateText, disclosureParts, disclosureText } from "../../shared/consent-disclosure";
import { buyersFileSchema, type LiveSettings } from "../../server/delivery/buyers";
import { allStores, type TestDatabase } from "../support/databases";
import { sampleDrivers, sampleNewLead, type NewLeadOverrides } from "../../tools/lead-session";
import { fixedSettings } from "../support/settings";

/** The carriers' text of wording version 1, as migration 4 knew it. */
const V1_SHA256 = "ec6ccb1d3ae36e4b1a256222db7e1d9fd339bbb2ac53e59901d84c80f1face22";
/** The partners version 1's text named (the landing page's carriers, as migration 4 records them): history, never named again. */
const V1_CARRIERS = ["Progressive", "GEICO", "State Farm", "Allstate", "Liberty Mutual", "Nationwide"];

const ACME: NamedBuyer = { id: "acme", name: "Acme Insurance Agency" };
const BETA: NamedBuyer = { id: "beta", name: "Beta Auto Insurance" };
const CEDAR: NamedBuyer = { id: "cedar", name: "Cedar Insurance Group" };

const OPENED = new Date("2026-03-02T15:00:00.000Z");
const RECEIVED = new Date("2026-03-02T15:02:05.678Z");

const newLead = (overrides: NewLeadOverrides = {}): NewLead =>
  sampleNewLead({
    receivedAt: RECEIVED,
    ...overrides,
    consent: { formOpenedAt: OPENED, termsVersion: "2023-05-24", privacyVersion: "2023-05-24", ...overrides.consent },
  });

/** A buyers file naming these buyers (delivery settings do not matter here). */
const buyersFile = (...buyers: NamedBuyer[]): LiveSettings =>
  buyersFileSchema.parse({ buyers: buyers.map((buyer) => ({ ...buyer, url: "https://buyer.example/leads", secret: "s".repeat(32), price: 10, timeoutMs: 5_000 })), sources: [] });

describe.each(allStores())("consent records and disclosures ($kind)", (store) => {
  let db: TestDatabase;
  let repo: LeadRepository;

  interface ConsentRow {
    lead_id: string | null;
    lead_reference: string;
    certificate_id: string | null;
    form_opened_at: Date | null;
    consented_at: Date;
    terms_version: string | null;
    privacy_version: string | null;
    first_name: string | null;
    last_name: string | null;
    zip: string | null;
    phone: string;
    email: string;
  }
  const consentRow = async (reference: string) =>
    (
      await db.query<ConsentRow>(
        `SELECT lead_id::text, lead_reference, certificate_id, form_opened_at, consented_at, terms_version, privacy_version,
                first_name, last_name, zip, phone, email
           FROM lead_consents WHERE lead_reference = $1`,
        [reference],
      )
    ).rows[0];
  const disclosures = async () =>
    (await db.query<{ version: number; sha256: string; buyer_ids: string[]; partner_names: string[] }>("SELECT version, sha256, buyer_ids, partner_names FROM consent_disclosures ORDER BY version")).rows.map(
      (row) => ({ ...row, version: Number(row.version) }),
    );
  const created = async (input: NewLead) => {
    const result = await leadStore(repo).create(input);
    if (!result.created) throw new Error("expected a new lead");
    return result.reference;
  };
  /** What delivery writes when a lead is sent to a buyer (server/db/deliveries.ts), reduced to what the certificate checks. */
  const delivered = (reference: string, buyerId: string) =>
    db.query(
      `INSERT INTO deliveries (lead_id, lead_reference, kind, target, idempotency_key, sale)
       SELECT id, reference, 'buyer', $2, reference || ':' || $2, true FROM leads WHERE reference = $1`,
      [reference, buyerId],
    );

  beforeAll(async () => {
    db = await store.open();
    repo = leadRepository(db);
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.query("TRUNCATE lead_consents, leads, consent_disclosures RESTART IDENTITY CASCADE");
    await registerDisclosure(db.builder, disclosureFor(undefined));
  });

  describe("the consent record", () => {
    it("keeps the certificate id, the form's opening, the legal versions, the name and the ZIP", async () => {
      const reference = await created(newLead({ lead: { drivers: sampleDrivers({ firstName: "José Ángel", lastName: "Núñez-O’Connor" }), zip: "00601" } }));
      const row = await consentRow(reference);
      expect(row).toMatchObject({
        form_opened_at: OPENED,
        consented_at: RECEIVED,
        terms_version: "2023-05-24",
        privacy_version: "2023-05-24",
        first_name: "José Ángel",
        last_name: "Núñez-O’Connor",
        zip: "00601",
      });
      expect(row?.certificate_id).toMatch(CERTIFICATE_ID_PATTERN);
    });

    it("gives every lead its own certificate id", async () => {
      const references = await Promise.all(Array.from({ length: 20 }, () => created(newLead())));
      const ids = await Promise.all(references.map(async (reference) => (await consentRow(reference))?.certificate_id));
      expect(new Set(ids).size).toBe(20);
    });

    it("outlives its lead: after 3 years the lead is gone, the record keeps name, phone, email, ZIP and certificate until 5", async () => {
      const now = new Date("2026-06-01T12:00:00Z");
      const { leadCutoff, consentCutoff } = retentionCutoffs(now);
      const fourYears = new Date("2022-06-01T00:00:00Z");
      const sixYears = new Date("2020-05-01T00:00:00Z");
      const kept = await created(newLead({ receivedAt: fourYears, lead: { drivers: sampleDrivers({ firstName: "Ana", lastName: "Diaz" }), zip: "90210", phone: "+14155550134", email: "ana@example.com" } }));
      const gone = await created(newLead({ receivedAt: sixYears }));
      const before = await consentRow(kept);

      expect(await repo.purge(leadCutoff, consentCutoff)).toEqual({ leads: 2, consents: 1 });
      expect(await repo.findByReference(kept)).toBeUndefined();
      expect(await consentRow(kept)).toEqual({
        ...before,
        lead_id: null,
        first_name: "Ana",
        last_name: "Diaz",
        zip: "90210",
        phone: "+14155550134",
        email: "ana@example.com",
      });
      expect(await consentRow(gone)).toBeUndefined();
    });
  });

  describe("findCertificateForBuyer()", () => {
    it("finds the record with its exact disclosure for a buyer the lead was delivered to, and nothing otherwise", async () => {
      const { version } = await registerDisclosure(db.builder, disclosureFor([ACME, BETA]));
      const reference = await created(newLead({ consent: { disclosureVersion: version, disclosureSha256: disclosureFor([ACME, BETA]).sha256 } }));
      const certificateId = (await consentRow(reference))!.certificate_id!;
      await delivered(reference, "acme");

      const found = await findCertificateForBuyer(db.builder, certificateId, "acme");
      expect(found).toMatchObject({
        certificateId,
        leadReference: reference,
        disclosureVersion: version,
        disclosureText: disclosureFor([ACME, BETA]).text,
        partnerNames: [ACME.name, BETA.name],
        buyerIds: ["acme", "beta"],
        formOpenedAt: OPENED,
        consentedAt: RECEIVED,
        termsVersion: "2023-05-24",
        firstName: "Ana",
        zip: "90210",
      });
      expect(await findCertificateForBuyer(db.builder, certificateId, "beta")).toBeUndefined();
      expect(await findCertificateForBuyer(db.builder, "AAAAAAAAAAAAAAAAAAAAAA", "acme")).toBeUndefined();
      expect(await certificateIdOf(db.builder, reference)).toBe(certificateId);
      expect(await certificateIdOf(db.builder, "LD-0000-0000")).toBeUndefined();
    });
  });

  describe("registerDisclosure(): versions are the database's", () => {
    it("stores the text without buyers as version 1, naming the carriers and no buyer", async () => {
      // The words naming only us: no partner, no buyer (issue 44: never the landing page's carriers).
      expect(await disclosures()).toEqual([{ version: 1, sha256: CONSENT_DISCLOSURE_SHA256, buyer_ids: [], partner_names: [] }]);
      expect((await registerDisclosure(db.builder, disclosureFor(undefined))).version).toBe(CONSENT_DISCLOSURE.version);
    });

    it("gives a new buyer list a new version, and the same list the same version again", async () => {
      expect((await registerDisclosure(db.builder, disclosureFor([ACME]))).version).toBe(2);
      expect((await registerDisclosure(db.builder, disclosureFor([ACME, BETA]))).version).toBe(3);
      expect((await registerDisclosure(db.builder, disclosureFor([ACME]))).version).toBe(2);
      expect((await registerDisclosure(db.builder, disclosureFor([BETA, ACME]))).version).toBe(4);
      expect((await registerDisclosure(db.builder, disclosureFor(undefined))).version).toBe(1);
      expect((await disclosures()).map((row) => [row.version, row.buyer_ids])).toEqual([
        [1, []],
        [2, ["acme"]],
        [3, ["acme", "beta"]],
        [4, ["beta", "acme"]],
      ]);
      const [, , three] = await disclosures();
      expect(three).toMatchObject({ sha256: disclosureFor([ACME, BETA]).sha256, partner_names: [ACME.name, BETA.name] });
    });

    it("keeps the version of the same words when only a buyer's id changed, naming the new id", async () => {
      const before = await registerDisclosure(db.builder, disclosureFor([ACME]));
      const renamed = await registerDisclosure(db.builder, disclosureFor([{ id: "acme-agency", name: ACME.name }]));
      expect(renamed.version).toBe(before.version);
      expect(renamed.buyerIds).toEqual(["acme-agency"]);
      expect((await disclosures()).find((row) => row.version === before.version)?.buyer_ids).toEqual(["acme-agency"]);
    });

    it("agrees on one version when replicas start together with the same new buyers", async () => {
      // PostgreSQL: separate connections, as replicas have; the embedded store is one process.
      const others: Database[] = db.kind === "postgres" ? await Promise.all(Array.from({ length: 4 }, () => openDatabase(db.location))) : [];
      try {
        const builders = [db.builder, ...others.map((other) => other.builder)];
        const list = [ACME, BETA, CEDAR];
        const versions = await Promise.all(Array.from({ length: 12 }, (_, i) => registerDisclosure(builders[i % builders.length]!, disclosureFor(list)).then((d) => d.version)));
        expect(new Set(versions)).toEqual(new Set([2]));
        // Different lists at once: each its own version, numbered without gaps or repeats.
        const mixed = await Promise.all(
          [[ACME], [BETA], [CEDAR], [ACME], [BETA], [CEDAR]].map((buyers, i) => registerDisclosure(builders[i % builders.length]!, disclosureFor(buyers)).then((d) => d.version)),
        );
        expect(mixed[0]).toBe(mixed[3]);
        expect(mixed[1]).toBe(mixed[4]);
        expect(mixed[2]).toBe(mixed[5]);
        expect(new Set(mixed.slice(0, 3))).toEqual(new Set([3, 4, 5]));
        expect((await disclosures()).map((row) => row.version)).toEqual([1, 2, 3, 4, 5]);
      } finally {
        await Promise.all(others.map((other) => other.close()));
      }
    });

    it("refuses other words stored under this wording version (an edit without a bump), storing nothing", async () => {
      await db.query("UPDATE consent_disclosures SET template_sha256 = $1", ["f".repeat(64)]);
      await expect(registerDisclosure(db.builder, disclosureFor([ACME]))).rejects.toBeInstanceOf(DisclosureMismatchError);
      await expect(registerDisclosure(db.builder, disclosureFor([ACME]))).rejects.toThrow(/Bump CONSENT_TEMPLATE\.version/);
      expect(await disclosures()).toHaveLength(1);
    });

    it("accepts texts of older wording versions side by side", async () => {
      await db.query("UPDATE consent_disclosures SET template_version = 0, template_sha256 = $1", ["f".repeat(64)]);
      expect((await registerDisclosure(db.builder, disclosureFor([ACME]))).version).toBe(2);
    });
  });

  describe("createLeadCapture() at start-up", () => {
    it("sends the session the words naming only us, with or without buyers: each visitor's own come with their answers", async () => {
      const capture = await createLeadCapture(db, "x".repeat(32), { LEAD_MIN_FILL_MS: 0 }, fixedSettings(buyersFile(ACME, BETA)));
      expect(await capture.shownDisclosure()).toEqual(CONSENT_DISCLOSURE);
      const without = await createLeadCapture(db, "x".repeat(32), { LEAD_MIN_FILL_MS: 0 });
      expect(await without.shownDisclosure()).toEqual(CONSENT_DISCLOSURE);
    });
  });

  describe("migration 4 on a store from before it", () => {
    it("marks the stored version 1 as the carriers' text of wording version 1, and copies names and ZIPs into existing records", async () => {
      const old = await store.open({ migrate: false });
      try {
        await migrate(old, migrations.filter((migration) => migration.version < 4));
        // The carriers' text as version 1's words had it (the wording of the time).
        const v1Text = disclosureText(disclosureParts(V1_CARRIERS, CONSENT_TEMPLATE_V1.parts));
        expect(sha256Hex(v1Text)).toBe(V1_SHA256);
        await old.query("INSERT INTO consent_disclosures (version, sha256, text) VALUES (1, $1, $2)", [V1_SHA256, v1Text]);
        const { rows } = await old.query<{ id: string }>(
          `INSERT INTO leads (reference, idempotency_key, zip, city, state, vehicle_year, vehicle_make, vehicle_model, ownership, primary_use,
                              first_name, last_name, date_of_birth, license_status, incidents, currently_insured, street_address, email, phone)
           VALUES ('LD-AAAA-BBBB', gen_random_uuid(), '90210', 'Beverly Hills', 'CA', 2019, 'Toyota', 'Camry', 'own', 'commute',
                   'Ana', 'Diaz', '1990-04-15', 'active', 'none', false, '1 Main St', 'ana@example.com', '+14155550134')
           RETURNING id::text`,
        );
        await old.query(
          `INSERT INTO lead_consents (lead_id, lead_reference, disclosure_version, disclosure_sha256, checkbox_checked, consented_at, phone, email, ip, user_agent, form_url, page_url)
           VALUES ($1, 'LD-AAAA-BBBB', 1, $2, true, now(), '+14155550134', 'ana@example.com', '203.0.113.7', 'UA', 'https://q.example/rapidfire.html', 'https://q.example/')`,
          [rows[0]!.id, V1_SHA256],
        );
        expect(await migrate(old)).toContain(4);

        const disclosure = await old.query<{ template_version: number; template_sha256: string; partner_names: string[]; buyer_ids: string[] }>(
          "SELECT template_version, template_sha256, partner_names, buyer_ids FROM consent_disclosures",
        );
        expect(disclosure.rows).toEqual([{ template_version: 1, template_sha256: sha256Hex(consentTemplateText(CONSENT_TEMPLATE_V1.parts)), partner_names: [...V1_CARRIERS], buyer_ids: [] }]);
        const consent = await old.query("SELECT first_name, last_name, zip, certificate_id FROM lead_consents");
        expect(consent.rows).toEqual([{ first_name: "Ana", last_name: "Diaz", zip: "90210", certificate_id: null }]);

        // The start-up after the deploy: today's words are a new text, version 2; buyers bring version 3.
        expect((await registerDisclosure(old.builder, disclosureFor(undefined))).version).toBe(2);
        expect((await registerDisclosure(old.builder, disclosureFor([ACME]))).version).toBe(3);
      } finally {
        await old.close();
      }
    });
  });
});
