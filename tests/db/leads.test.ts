/**
 * The leads, lead_consents and consent_disclosures tables through their repository
 * (server/db/leads.ts), against both stores: the embedded PGlite store and PostgreSQL. One
 * database per store for the whole file (PGlite takes seconds to open), emptied before each test.
 */
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DisclosureMismatchError, leadRepository, type LeadRecord, type LeadRepository } from "../../server/db/leads";
import { leadStore, type NewLead } from "../../server/leads/store";
import { createLeadCapture } from "../../server/leads/capture";
import { quoteRidgeOnlyDisclosure } from "../../server/leads/disclosure";
import { CONSENT_TEMPLATE } from "../../shared/consent-disclosure";
import { retentionCutoffs } from "../../server/leads/retention";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";
import type { Lead, Vehicle } from "../../shared/lead/fields";
import { allStores, type TestDatabase } from "../support/databases";
import { migrate } from "../../server/db/migrate";
import { migrations } from "../../server/db/migrations";
import { sampleNewLead, type NewLeadOverrides } from "../../tools/lead-session";

const DISCLOSURE = quoteRidgeOnlyDisclosure();
const DAY_MS = 86_400_000;
const T0 = new Date("2026-03-02T15:04:05.678Z");
const days = (n: number, from: Date = T0) => new Date(from.getTime() + n * DAY_MS);

/** A realistic stored-lead input (the shared sample, a contact of its own), received at T0 unless told. */
const newLead = (overrides: NewLeadOverrides = {}): NewLead => sampleNewLead({ receivedAt: T0, ...overrides });

async function createdRef(repo: LeadRepository, input: NewLead): Promise<{ reference: string; duplicateOf: string | null }> {
  const result = await leadStore(repo).create(input);
  if (!result.created) throw new Error(`expected a new lead, got the existing ${result.existingReference}`);
  return { reference: result.reference, duplicateOf: result.duplicateOf };
}

describe.each(allStores())("leads ($kind)", (store) => {
  let db: TestDatabase;
  let repo: LeadRepository;

  const consentRows = async () =>
    (
      await db.query<{ lead_id: string | null; lead_reference: string; phone: string; email: string; consented_at: Date }>(
        "SELECT lead_id::text, lead_reference, phone, email, consented_at FROM lead_consents ORDER BY consented_at, id",
      )
    ).rows;

  /**
   * Opens the pool's connections before a race: on a cold pool the first transaction commits
   * before the next connection is even up, and the race under test never happens.
   */
  const warmUp = () => Promise.all(Array.from({ length: 10 }, () => db.query("SELECT pg_sleep(0.05)")));

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

  describe("create()", () => {
    it("stores exactly one lead and one consent record, with every field, read back as given", async () => {
      const input = newLead({
        lead: {
          zip: "00601",
          vehicles: [
            { year: 2027, make: "Mercedes-Benz", model: "GLE 350 4MATIC", ownership: "lease", primaryUse: "business", annualMileage: "over_20k" },
            { year: 2003, make: "Honda", model: "Accord", vin: "1HGCM82633A004352", ownership: "own", primaryUse: "pleasure", annualMileage: "under_5k" },
            { year: 1999, make: "Other", model: "Kit car", ownership: "own", primaryUse: "pleasure", annualMileage: "under_5k" },
          ],
          drivers: [
            { firstName: "José Ángel", lastName: "Núñez-O’Connor", dateOfBirth: "2000-02-29", relationship: "self", maritalStatus: "single", licenseStatus: "foreign", ageFirstLicensed: 19, accidents: 2, tickets: 1, claims: 3, dui: true, sr22: true },
            { firstName: "Mía", lastName: "Núñez", dateOfBirth: "2010-01-01", relationship: "sibling", maritalStatus: "single", licenseStatus: "permit", ageFirstLicensed: 15, accidents: 0, tickets: 0, claims: 0, dui: false, sr22: false },
          ],
          currentInsurer: "Other company",
          insuredFor: "under_6m",
          coverage: "premium",
          residence: "rent",
          streetAddress: "12 Calle Luna, Apt #4",
          email: "jose.nunez+quotes@example.pr",
          phone: "+17875550134",
        },
        location: { city: "Adjuntas", state: "PR", timeZone: "America/Puerto_Rico" },
        sid: "aff-7.x~_Z",
        tid: "click_0123456789",
        gpc: true,
        receivedAt: new Date("2026-03-01T23:59:59.999Z"),
        consent: { ip: "2001:db8::7", userAgent: 'Mozilla/5.0 "quoted", with commas', formUrl: "http://localhost:3000/rapidfire.html?zip=00601", pageUrl: "http://localhost:3000/zipcode?zip=00601" },
      });
      const result = await leadStore(repo).create(input);
      expect(result).toEqual({ created: true, reference: expect.stringMatching(LEAD_REFERENCE_PATTERN), duplicateOf: null, deliveries: 0, auctions: 0 });
      const reference = result.created ? result.reference : "";

      const stored = await repo.findByReference(reference);
      expect(stored).toEqual({
        reference,
        receivedAt: new Date("2026-03-01T23:59:59.999Z"),
        zip: "00601",
        city: "Adjuntas",
        state: "PR",
        // Kept for the buyers' calling rules, so the background worker needs no ZIP table.
        timeZone: "America/Puerto_Rico",
        // Every vehicle and driver exactly as given, and the first of each in the summary columns.
        vehicles: input.lead.vehicles,
        drivers: input.lead.drivers,
        vehicleYear: 2027,
        vehicleMake: "Mercedes-Benz",
        vehicleModel: "GLE 350 4MATIC",
        ownership: "lease",
        primaryUse: "business",
        firstName: "José Ángel",
        lastName: "Núñez-O’Connor",
        dateOfBirth: "2000-02-29",
        licenseStatus: "foreign",
        incidents: "two_or_more",
        currentlyInsured: true,
        currentInsurer: "Other company",
        insuredFor: "under_6m",
        coverage: "premium",
        residence: "rent",
        streetAddress: "12 Calle Luna, Apt #4",
        email: "jose.nunez+quotes@example.pr",
        phone: "+17875550134",
        sid: "aff-7.x~_Z",
        tid: "click_0123456789",
        gpc: true,
        duplicateOf: null,
        test: false,
        consent: {
          disclosureVersion: DISCLOSURE.version,
          disclosureSha256: DISCLOSURE.sha256,
          checkboxChecked: true,
          consentedAt: new Date("2026-03-01T23:59:59.999Z"),
          ip: "2001:db8::7",
          userAgent: 'Mozilla/5.0 "quoted", with commas',
          formUrl: "http://localhost:3000/rapidfire.html?zip=00601",
          pageUrl: "http://localhost:3000/zipcode?zip=00601",
          certificateId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) as unknown as string,
        },
      } satisfies LeadRecord);
      expect(stored?.receivedAt).toBeInstanceOf(Date);
      expect(stored?.consent?.consentedAt).toBeInstanceOf(Date);
      expect(typeof stored?.vehicleYear).toBe("number");

      expect(await repo.counts()).toEqual({ leads: 1, consents: 1, duplicates: 0 });
      const consents = await consentRows();
      expect(consents).toHaveLength(1);
      expect(consents[0]).toMatchObject({ lead_reference: reference, phone: "+17875550134", email: "jose.nunez+quotes@example.pr" });
      expect(consents[0]?.lead_id).not.toBeNull();
      const key = await db.query<{ idempotency_key: string }>("SELECT idempotency_key::text FROM leads WHERE reference = $1", [reference]);
      expect(key.rows[0]?.idempotency_key).toBe(input.idempotencyKey);
    });

    it("reads dates of birth back as the same calendar day, whatever the time zone", async () => {
      for (const dateOfBirth of ["1969-12-31", "1970-01-01", "1916-06-15", "2008-06-15"]) {
        const driver = { ...sampleNewLead().lead.drivers[0]!, dateOfBirth };
        const { reference } = await createdRef(repo, newLead({ lead: { drivers: [driver] } }));
        expect((await repo.findByReference(reference))?.dateOfBirth, dateOfBirth).toBe(dateOfBirth);
      }
    });

    it("stores no insurer for someone not insured, and no campaign ids when none came", async () => {
      const { reference } = await createdRef(repo, newLead({ lead: { currentlyInsured: false, currentInsurer: undefined, insuredFor: undefined }, sid: undefined, tid: undefined }));
      expect(await repo.findByReference(reference)).toMatchObject({ currentlyInsured: false, currentInsurer: null, insuredFor: null, sid: null, tid: null, gpc: false });
    });

    it("stores a lead ops marked a test as a test, never a duplicate of the same contact's earlier lead", async () => {
      const contact = sampleNewLead().lead;
      await createdRef(repo, newLead({ lead: { phone: contact.phone, email: contact.email } }));
      const { reference, duplicateOf } = await createdRef(repo, newLead({ lead: { phone: contact.phone, email: contact.email }, test: true }));
      expect(duplicateOf).toBeNull();
      expect((await repo.findByReference(reference))?.test).toBe(true);
    });

    it("finds nothing for an unknown reference", async () => {
      expect(await repo.findByReference("LD-0000-0000")).toBeUndefined();
    });

    it("answers the same idempotency key again with the first lead's reference, storing nothing new", async () => {
      const idempotencyKey = randomUUID();
      const { reference } = await createdRef(repo, newLead({ idempotencyKey }));
      const someone = { ...sampleNewLead().lead.drivers[0]!, firstName: "Someone" };
      const again = await leadStore(repo).create(newLead({ idempotencyKey, lead: { drivers: [someone], email: "else@example.com" }, receivedAt: days(1) }));
      expect(again).toEqual({ created: false, existingReference: reference });
      const upperCase = await leadStore(repo).create(newLead({ idempotencyKey: idempotencyKey.toUpperCase() }));
      expect(upperCase).toEqual({ created: false, existingReference: reference });
      expect(await repo.counts()).toEqual({ leads: 1, consents: 1, duplicates: 0 });
      expect(await repo.findByReference(reference)).toMatchObject({ firstName: "Ana", receivedAt: T0 });
    });

    it("stores a repeat from the same phone (another email) or the same email within 30 days as a duplicate of the earliest lead", async () => {
      const phone = "+12125550101";
      const email = "repeat@example.com";
      const original = await createdRef(repo, newLead({ lead: { phone, email } }));
      expect(original.duplicateOf).toBeNull();

      const samePhone = await createdRef(repo, newLead({ lead: { phone, email: "other@example.com" }, receivedAt: days(1) }));
      const sameEmail = await createdRef(repo, newLead({ lead: { phone: "+12125550102", email }, receivedAt: days(2) }));
      expect(samePhone.duplicateOf).toBe(original.reference);
      expect(sameEmail.duplicateOf).toBe(original.reference);
      // Matches only the second lead's email: still points at the original, not at the duplicate.
      const later = await createdRef(repo, newLead({ lead: { phone: "+12125550103", email: "other@example.com" }, receivedAt: days(3) }));
      expect(later.duplicateOf).toBe(original.reference);

      expect((await repo.findByReference(samePhone.reference))?.duplicateOf).toBe(original.reference);
      expect((await repo.findByReference(original.reference))?.duplicateOf).toBeNull();
      expect(await repo.counts()).toEqual({ leads: 4, consents: 4, duplicates: 3 });
    });

    it("counts 30 days to the millisecond: a repeat at exactly 30 days is a duplicate, one later is not", async () => {
      const first = await createdRef(repo, newLead({ lead: { phone: "+13125550101", email: "first@example.com" } }));
      const atThirty = await createdRef(repo, newLead({ lead: { phone: "+13125550101", email: "a30@example.com" }, receivedAt: days(30) }));
      expect(atThirty.duplicateOf).toBe(first.reference);

      const second = await createdRef(repo, newLead({ lead: { phone: "+13125550202", email: "second@example.com" } }));
      const past = await createdRef(repo, newLead({ lead: { phone: "+13125550303", email: "second@example.com" }, receivedAt: new Date(days(30).getTime() + 1) }));
      expect(second.duplicateOf).toBeNull();
      expect(past.duplicateOf).toBeNull();
      expect((await repo.counts()).duplicates).toBe(1);
    });

    it("does not count a lead from a year ago with the same phone and email", async () => {
      await createdRef(repo, newLead({ lead: { phone: "+16175550100", email: "year@example.com" }, receivedAt: days(-365) }));
      expect((await createdRef(repo, newLead({ lead: { phone: "+16175550100", email: "year@example.com" } }))).duplicateOf).toBeNull();
    });

    it("stores exactly one original among 100 simultaneous requests from the same phone", async () => {
      const phone = "+14045550100";
      await warmUp();
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => createdRef(repo, newLead({ lead: { phone, email: `same-phone-${i}@example.com` } }))));
      const originals = results.filter((result) => result.duplicateOf === null);
      expect(originals).toHaveLength(1);
      for (const result of results) if (result !== originals[0]) expect(result.duplicateOf).toBe(originals[0]!.reference);
      expect(new Set(results.map((result) => result.reference)).size).toBe(100);
      expect(await repo.counts()).toEqual({ leads: 100, consents: 100, duplicates: 99 });
    });

    it("stores exactly one lead when the same submission arrives 100 times at once", async () => {
      const input = newLead();
      await warmUp();
      const results = await Promise.all(Array.from({ length: 100 }, () => leadStore(repo).create({ ...input })));
      const winners = results.flatMap((result) => (result.created ? [result.reference] : []));
      expect(winners).toHaveLength(1);
      for (const result of results) if (!result.created) expect(result.existingReference).toBe(winners[0]);
      expect(await repo.counts()).toEqual({ leads: 1, consents: 1, duplicates: 0 });
    });

    it("stores exactly one lead for 100 simultaneous requests with one idempotency key, even with different contact details", async () => {
      const idempotencyKey = randomUUID();
      await warmUp();
      const results = await Promise.all(Array.from({ length: 100 }, () => leadStore(repo).create(newLead({ idempotencyKey }))));
      const winners = results.flatMap((result) => (result.created ? [result.reference] : []));
      expect(winners).toHaveLength(1);
      for (const result of results) if (!result.created) expect(result.existingReference).toBe(winners[0]);
      expect(await repo.counts()).toEqual({ leads: 1, consents: 1, duplicates: 0 });
    });

    it("stores nothing when the consent names a disclosure version that was never registered", async () => {
      await expect(leadStore(repo).create(newLead({ consent: { disclosureVersion: DISCLOSURE.version + 1000 } }))).rejects.toMatchObject({ code: "23503" });
      expect(await repo.counts()).toEqual({ leads: 0, consents: 0, duplicates: 0 });
    });

    it("stores nothing that breaks the table's rules (an insurer for someone not insured, an unknown choice)", async () => {
      await expect(leadStore(repo).create(newLead({ lead: { currentlyInsured: false, currentInsurer: "GEICO" } }))).rejects.toMatchObject({ code: "23514" });
      const vehicle = sampleNewLead().lead.vehicles[0]!;
      await expect(leadStore(repo).create(newLead({ lead: { vehicles: [{ ...vehicle, ownership: "stolen" as Vehicle["ownership"] }] } }))).rejects.toMatchObject({ code: "23514" });
      await expect(leadStore(repo).create(newLead({ lead: { coverage: "gold" as Lead["coverage"] } }))).rejects.toMatchObject({ code: "23514" });
      // Five vehicles never reach the table (the schema allows 4; the table's rule says so too).
      await expect(leadStore(repo).create(newLead({ lead: { vehicles: [vehicle, vehicle, vehicle, vehicle, vehicle] } }))).rejects.toMatchObject({ code: "23514" });
      expect(await repo.counts()).toEqual({ leads: 0, consents: 0, duplicates: 0 });
    });
  });

  describe("createLeadCapture() at start-up", () => {
    it("registers this build's disclosure, and starts again on the same store", async () => {
      await db.query("TRUNCATE lead_consents, leads, consent_disclosures CASCADE");
      await createLeadCapture(db, "x".repeat(32), { LEAD_MIN_FILL_MS: 4_000 });
      await createLeadCapture(db, "x".repeat(32), { LEAD_MIN_FILL_MS: 4_000 });
      const { rows } = await db.query<{ version: number; sha256: string; text: string }>("SELECT version, sha256, text FROM consent_disclosures");
      expect(rows).toEqual([{ version: DISCLOSURE.version, sha256: DISCLOSURE.sha256, text: DISCLOSURE.text }]);
    });

    it("refuses to start, writing nothing, when the text changed but its version and recorded hash did not", async () => {
      await db.query("TRUNCATE lead_consents, leads, consent_disclosures CASCADE");
      const originalParts = CONSENT_TEMPLATE.parts;
      CONSENT_TEMPLATE.parts = [...originalParts.slice(0, -1), " and agree to receive newsletters."];
      try {
        await expect(createLeadCapture(db, "x".repeat(32), { LEAD_MIN_FILL_MS: 4_000 })).rejects.toThrow(
          /consent disclosure's text changed .*bump CONSENT_TEMPLATE\.version and CONSENT_TEMPLATE_SHA256/,
        );
      } finally {
        CONSENT_TEMPLATE.parts = originalParts;
      }
      expect((await db.query("SELECT version FROM consent_disclosures")).rows).toEqual([]);
    });

    it("refuses to start when the store holds other wording under this build's version", async () => {
      await db.query("TRUNCATE lead_consents, leads, consent_disclosures CASCADE");
      await db.query("INSERT INTO consent_disclosures (version, sha256, text, template_version, template_sha256) VALUES (1, $1, $2, $3, $4)", [
        "0".repeat(64),
        "What an older build showed under the same wording version.",
        CONSENT_TEMPLATE.version,
        "f".repeat(64),
      ]);
      await expect(createLeadCapture(db, "x".repeat(32), { LEAD_MIN_FILL_MS: 4_000 })).rejects.toBeInstanceOf(DisclosureMismatchError);
    });
  });

  describe("list()", () => {
    const hours = (n: number) => new Date(T0.getTime() + n * 3_600_000);
    let refs: Record<string, string>;

    beforeEach(async () => {
      // Inserted out of order; two share a received_at (then insertion order decides).
      refs = {};
      for (const [name, at] of [["h3", 3], ["h1", 1], ["h5", 5], ["h2a", 2], ["h2b", 2], ["h4", 4]] as const) {
        refs[name] = (await createdRef(repo, newLead({ receivedAt: hours(at) }))).reference;
      }
    });

    const names = (records: LeadRecord[]) => records.map((record) => Object.keys(refs).find((name) => refs[name] === record.reference));

    it("returns every lead with its consent record, oldest first", async () => {
      const all = await repo.list();
      expect(names(all)).toEqual(["h1", "h2a", "h2b", "h3", "h4", "h5"]);
      for (const record of all) expect(record.consent).toMatchObject({ checkboxChecked: true, consentedAt: record.receivedAt });
    });

    it("filters by since (inclusive) and until (exclusive)", async () => {
      expect(names(await repo.list({ since: hours(2) }))).toEqual(["h2a", "h2b", "h3", "h4", "h5"]);
      expect(names(await repo.list({ until: hours(3) }))).toEqual(["h1", "h2a", "h2b"]);
      expect(names(await repo.list({ since: hours(2), until: hours(4) }))).toEqual(["h2a", "h2b", "h3"]);
      expect(names(await repo.list({ since: new Date(hours(2).getTime() + 1), until: new Date(hours(4).getTime() + 1) }))).toEqual(["h3", "h4"]);
      expect(await repo.list({ since: hours(6) })).toEqual([]);
      expect(await repo.list({ since: hours(3), until: hours(3) })).toEqual([]);
    });
  });

  describe("purge()", () => {
    const NOW = new Date("2026-06-01T12:00:00Z");
    const { leadCutoff, consentCutoff } = retentionCutoffs(NOW);

    it("uses the privacy policy's periods: 3 years for leads, 5 for consent records", () => {
      expect(leadCutoff).toEqual(new Date("2023-06-01T12:00:00Z"));
      expect(consentCutoff).toEqual(new Date("2021-06-01T12:00:00Z"));
    });

    it("deletes old leads, keeps their consent records until those are old too, then deletes them", async () => {
      const sixYears = await createdRef(repo, newLead({ receivedAt: new Date("2020-05-01T00:00:00Z") }));
      const justPastConsent = await createdRef(repo, newLead({ receivedAt: new Date(consentCutoff.getTime() - 1) }));
      const atConsentCutoff = await createdRef(repo, newLead({ receivedAt: consentCutoff }));
      const fourYears = await createdRef(repo, newLead({ receivedAt: new Date("2022-06-01T00:00:00Z"), lead: { phone: "+17185550199", email: "kept-consent@example.com" } }));
      const justPastLead = await createdRef(repo, newLead({ receivedAt: new Date(leadCutoff.getTime() - 1) }));
      const atLeadCutoff = await createdRef(repo, newLead({ receivedAt: leadCutoff }));
      const recent = await createdRef(repo, newLead({ receivedAt: new Date("2026-05-31T00:00:00Z") }));

      expect(await repo.purge(leadCutoff, consentCutoff)).toEqual({ leads: 5, consents: 2 });

      expect((await repo.list()).map((record) => record.reference)).toEqual([atLeadCutoff.reference, recent.reference]);
      expect(await repo.findByReference(fourYears.reference)).toBeUndefined();
      const consents = await consentRows();
      expect(consents.map((row) => row.lead_reference)).toEqual([atConsentCutoff.reference, fourYears.reference, justPastLead.reference, atLeadCutoff.reference, recent.reference]);
      expect(consents.map((row) => row.lead_id === null)).toEqual([true, true, true, false, false]);
      expect(consents[1]).toMatchObject({ lead_id: null, phone: "+17185550199", email: "kept-consent@example.com" });
      expect(consents.map((row) => row.lead_reference)).not.toContain(sixYears.reference);
      expect(consents.map((row) => row.lead_reference)).not.toContain(justPastConsent.reference);
      expect(await repo.counts()).toEqual({ leads: 2, consents: 5, duplicates: 0 });

      expect(await repo.purge(leadCutoff, consentCutoff)).toEqual({ leads: 0, consents: 0 });
    });

    it("deletes nothing when everything is recent", async () => {
      await createdRef(repo, newLead({ receivedAt: new Date("2026-05-01T00:00:00Z") }));
      expect(await repo.purge(leadCutoff, consentCutoff)).toEqual({ leads: 0, consents: 0 });
      expect(await repo.counts()).toEqual({ leads: 1, consents: 1, duplicates: 0 });
    });
  });

  describe("counts()", () => {
    it("is zero for an empty store and counts leads, consent records and duplicates", async () => {
      expect(await repo.counts()).toEqual({ leads: 0, consents: 0, duplicates: 0 });
      await createdRef(repo, newLead({ lead: { phone: "+15035550100" } }));
      await createdRef(repo, newLead({ lead: { phone: "+15035550100" }, receivedAt: days(1) }));
      await createdRef(repo, newLead());
      expect(await repo.counts()).toEqual({ leads: 3, consents: 3, duplicates: 1 });
    });
  });
  describe("migration 10 on a store from before it", () => {
    it("keeps an existing lead readable: its one vehicle and one driver become the lists, the new answers are null", async () => {
      const old = await store.open({ migrate: false });
      try {
        await migrate(old, migrations.filter((migration) => migration.version < 10));
        await old.query(
          `INSERT INTO leads (reference, idempotency_key, zip, city, state, vehicle_year, vehicle_make, vehicle_model, ownership, primary_use,
                              first_name, last_name, date_of_birth, license_status, incidents, currently_insured, current_insurer, street_address, email, phone)
           VALUES ('LD-AAAA-BBBB', gen_random_uuid(), '90210', 'Beverly Hills', 'CA', 2019, 'Toyota', 'Camry', 'lease', 'business',
                   'Ana', 'Diaz', '1990-04-15', 'permit', 'one', true, 'GEICO', '1 Main St', 'ana@example.com', '+14155550134')`,
        );
        expect(await migrate(old)).toContain(10);
        const stored = await leadRepository(old).findByReference("LD-AAAA-BBBB");
        expect(stored).toMatchObject({
          vehicles: [{ year: 2019, make: "Toyota", model: "Camry", ownership: "lease", primaryUse: "business" }],
          drivers: [{ firstName: "Ana", lastName: "Diaz", dateOfBirth: "1990-04-15", relationship: "self", licenseStatus: "permit", incidents: "one" }],
          vehicleModel: "Camry",
          incidents: "one",
          currentInsurer: "GEICO",
          insuredFor: null,
          coverage: null,
          residence: null,
        });
        expect(stored?.vehicles[0]).not.toHaveProperty("annualMileage");
      } finally {
        await old.close();
      }
    });
  });
});
