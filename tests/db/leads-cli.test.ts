/**
 * `npm run leads` (server/cli/leads.ts): the export for partners and ops, and the retention job,
 * against both stores. The command opens the store itself from its environment, as in
 * production; the embedded store can only be open once, so each step here opens, works and
 * closes before the command runs.
 */
import { registerDisclosure } from "../../server/consent/disclosures";
import { disclosureFor } from "../../server/leads/disclosure";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../server/cli/leads";
import { UsageError } from "../../server/cli/common";
import { openDatabase } from "../../server/db/database";
import { insertEvents } from "../../server/analytics/store";
import { migrate } from "../../server/db/migrate";
import { leadRepository, type LeadRepository } from "../../server/db/leads";
import { leadStore, type NewLead } from "../../server/leads/store";
import { quoteRidgeOnlyDisclosure } from "../../server/leads/disclosure";
import { retentionCutoffs } from "../../server/leads/retention";
import { commandStores, withCommandStore, type CommandStore } from "../support/databases";
import { sampleDrivers, sampleNewLead, type NewLeadOverrides } from "../../tools/lead-session";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DISCLOSURE = quoteRidgeOnlyDisclosure();
const DAY_MS = 86_400_000;

const VEHICLE_CELLS = ["year", "make", "model", "vin", "ownership", "primary_use", "annual_mileage"];
const DRIVER_CELLS = ["first_name", "last_name", "date_of_birth", "relationship", "marital_status", "license_status", "age_first_licensed", "accidents", "tickets", "claims", "dui", "sr22", "incidents"];
/** vehicle_1_year … vehicle_4_annual_mileage, driver_1_first_name … driver_4_incidents. */
const slots = (prefix: string, cells: readonly string[]) => [1, 2, 3, 4].flatMap((slot) => cells.map((cell) => `${prefix}_${slot}_${cell}`));
const COLUMNS = [
  "reference",
  "received_at",
  "duplicate_of",
  "sid",
  "tid",
  "zip",
  "city",
  "state",
  ...slots("vehicle", VEHICLE_CELLS),
  ...slots("driver", DRIVER_CELLS),
  "currently_insured",
  "current_insurer",
  "insured_for",
  "coverage",
  "residence",
  "street_address",
  "email",
  "phone",
  "gpc",
  "consent_disclosure_version",
  "consent_disclosure_sha256",
  "consent_checkbox",
  "consented_at",
  "consent_ip",
  "consent_user_agent",
  "consent_form_url",
  "consent_page_url",
];

type Location = CommandStore;

const LOCATIONS = commandStores({}, { running: true });

/** Opens the store, works with the repository, and closes it again (before the command opens it). */
async function withRepository<T>(location: Location, work: (repo: LeadRepository) => Promise<T>): Promise<T> {
  const db = await openDatabase(location.options);
  try {
    await migrate(db);
    const repo = leadRepository(db);
    await registerDisclosure(db.builder, disclosureFor(undefined));
    return await work(repo);
  } finally {
    await db.close();
  }
}

const CONSENT: NewLead["consent"] = {
  disclosureVersion: DISCLOSURE.version,
  disclosureSha256: DISCLOSURE.sha256,
  checkboxChecked: true,
  ip: "203.0.113.7",
  userAgent: "Mozilla/5.0 (X11; Linux x86_64)",
  formUrl: "https://www.quoteridge.com/rapidfire.html?zip=90210",
  pageUrl: "https://www.quoteridge.com/zipcode?zip=90210",
};

/** A realistic stored-lead input (the shared sample, a contact of its own) received at `receivedAt`. */
const newLead = (receivedAt: Date, overrides: NewLeadOverrides = {}): NewLead => sampleNewLead({ receivedAt, consent: CONSENT, ...overrides });

async function create(repo: LeadRepository, input: NewLead): Promise<string> {
  const result = await leadStore(repo).create(input);
  if (!result.created) throw new Error("expected a new lead");
  return result.reference;
}

/** RFC 4180: quoted fields may hold commas, doubled quotes and line breaks; records end with CRLF. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell === "") quoted = true;
    else if (char === ",") {
      record.push(cell);
      cell = "";
    } else if (char === "\r" && text[i + 1] === "\n") {
      record.push(cell);
      records.push(record);
      record = [];
      cell = "";
      i += 1;
    } else cell += char;
  }
  if (cell !== "" || record.length > 0) throw new Error(`CSV does not end with CRLF: ${JSON.stringify(text.slice(-40))}`);
  return records;
}

describe.each(LOCATIONS)("npm run leads ($kind)", ({ make }) => {
  describe("export", () => {
    let location: Location;
    const refs: Record<string, string> = {};

    // UTC days for the tests of the format; the report's own zone is tried below.
    async function cli(...argv: string[]) {
      return cliIn("UTC", ...argv);
    }
    async function cliIn(timeZone: string, ...argv: string[]) {
      let output = "";
      const code = await run(argv, (text) => (output += text), { ...location.env, REPORT_TIME_ZONE: timeZone });
      return { code, output };
    }

    beforeAll(async () => {
      location = await make();
      await withRepository(location, async (repo) => {
        refs.before = await create(repo, newLead(new Date("2026-01-31T23:59:59.999Z")));
        refs.first = await create(
          repo,
          newLead(new Date("2026-02-01T00:00:00.000Z"), {
            lead: {
              drivers: sampleDrivers({ firstName: "José", lastName: "Núñez", dateOfBirth: "2000-02-29" }),
              streetAddress: "12 O'Connell St, Apt #4",
              phone: "+14155550134",
              email: "jose@example.com",
              currentlyInsured: false,
              currentInsurer: undefined,
              insuredFor: undefined,
            },
            sid: "-2+3",
            tid: undefined,
            gpc: true,
            consent: { ...CONSENT, userAgent: '=HYPERLINK("http://x","y")', ip: "2001:db8::1", formUrl: "https://www.quoteridge.com/rapidfire.html?zip=90210&sid=-2%2B3" },
          }),
        );
        refs.repeat = await create(repo, newLead(new Date("2026-02-15T12:30:00.000Z"), { lead: { phone: "+14155550134", email: "other@example.com" } }));
        refs.atUntil = await create(repo, newLead(new Date("2026-03-01T00:00:00.000Z")));
      });
    });
    afterAll(async () => {
      await location?.remove();
    });

    it("writes CSV with a header of the lead's and the consent record's columns, CRLF lines, in [since, until)", async () => {
      const { code, output } = await cli("export", "--since", "2026-02-01", "--until", "2026-03-01", "--format", "csv");
      expect(code).toBe(0);
      expect(output.endsWith("\r\n")).toBe(true);
      const [header, ...rows] = parseCsv(output);
      expect(header).toEqual(COLUMNS);
      expect(rows.map((row) => row[0])).toEqual([refs.first, refs.repeat]);
      for (const row of rows) expect(row).toHaveLength(COLUMNS.length);
    });

    it("exports every field of a lead and its consent record, quoted per RFC 4180 and defused for spreadsheets", async () => {
      const { output } = await cli("export", "--since", "2026-02-01", "--until", "2026-02-02");
      const [header, row] = parseCsv(output);
      const cells = Object.fromEntries(header!.map((name, i) => [name, row![i]]));
      expect(cells).toEqual({
        reference: refs.first,
        received_at: "2026-02-01T00:00:00.000Z",
        duplicate_of: "",
        sid: "'-2+3",
        tid: "",
        zip: "90210",
        city: "Beverly Hills",
        state: "CA",
        // Empty slots are empty cells.
        ...Object.fromEntries(COLUMNS.filter((name) => /^(vehicle|driver)_[34]_/.test(name)).map((name) => [name, ""])),
        vehicle_1_year: "2019",
        vehicle_1_make: "Toyota",
        vehicle_1_model: "Camry",
        vehicle_1_vin: "",
        vehicle_1_ownership: "own",
        vehicle_1_primary_use: "commute",
        vehicle_1_annual_mileage: "10k_15k",
        vehicle_2_year: "2003",
        vehicle_2_make: "Honda",
        vehicle_2_model: "Accord",
        vehicle_2_vin: "1HGCM82633A004352",
        vehicle_2_ownership: "finance",
        vehicle_2_primary_use: "pleasure",
        vehicle_2_annual_mileage: "under_5k",
        driver_1_first_name: "José",
        driver_1_last_name: "Núñez",
        driver_1_date_of_birth: "2000-02-29",
        driver_1_relationship: "self",
        driver_1_marital_status: "married",
        driver_1_license_status: "active",
        driver_1_age_first_licensed: "16",
        driver_1_accidents: "0",
        driver_1_tickets: "1",
        driver_1_claims: "0",
        driver_1_dui: "false",
        driver_1_sr22: "false",
        driver_1_incidents: "",
        driver_2_first_name: "Luis",
        driver_2_last_name: "O'Brien",
        driver_2_date_of_birth: "1988-11-02",
        driver_2_relationship: "spouse",
        driver_2_marital_status: "married",
        driver_2_license_status: "active",
        driver_2_age_first_licensed: "17",
        driver_2_accidents: "1",
        driver_2_tickets: "0",
        driver_2_claims: "1",
        driver_2_dui: "false",
        driver_2_sr22: "false",
        driver_2_incidents: "",
        currently_insured: "false",
        current_insurer: "",
        insured_for: "",
        coverage: "standard",
        residence: "own",
        street_address: "12 O'Connell St, Apt #4",
        email: "jose@example.com",
        // A plain signed number is no formula: the E.164 phone stays as it is for CRM imports.
        phone: "+14155550134",
        gpc: "true",
        consent_disclosure_version: String(DISCLOSURE.version),
        consent_disclosure_sha256: DISCLOSURE.sha256,
        consent_checkbox: "true",
        consented_at: "2026-02-01T00:00:00.000Z",
        consent_ip: "2001:db8::1",
        consent_user_agent: `'=HYPERLINK("http://x","y")`,
        consent_form_url: "https://www.quoteridge.com/rapidfire.html?zip=90210&sid=-2%2B3",
        consent_page_url: "https://www.quoteridge.com/zipcode?zip=90210",
      });
      // The raw text: a cell with a comma or a quote is quoted, its quotes doubled.
      expect(output).toContain(`,"12 O'Connell St, Apt #4",`);
      expect(output).toContain(`,"'=HYPERLINK(""http://x"",""y"")",`);
    });

    it("marks a repeat from the same phone with the original's reference", async () => {
      const { output } = await cli("export", "--since", "2026-02-15", "--until", "2026-02-16");
      const [header, row] = parseCsv(output);
      expect(row![header!.indexOf("reference")]).toBe(refs.repeat);
      expect(row![header!.indexOf("duplicate_of")]).toBe(refs.first);
    });

    it("writes NDJSON: one JSON object per line, with the consent record", async () => {
      const { code, output } = await cli("export", "--since", "2026-02-01", "--format", "ndjson");
      expect(code).toBe(0);
      expect(output.endsWith("\n")).toBe(true);
      const lines = output.slice(0, -1).split("\n");
      expect(lines).toHaveLength(3);
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown> & { consent: Record<string, unknown> });
      expect(records.map((record) => record.reference)).toEqual([refs.first, refs.repeat, refs.atUntil]);
      expect(records[0]).toMatchObject({
        receivedAt: "2026-02-01T00:00:00.000Z",
        firstName: "José",
        streetAddress: "12 O'Connell St, Apt #4",
        phone: "+14155550134",
        dateOfBirth: "2000-02-29",
        currentlyInsured: false,
        currentInsurer: null,
        sid: "-2+3",
        tid: null,
        gpc: true,
        duplicateOf: null,
        consent: {
          disclosureVersion: DISCLOSURE.version,
          disclosureSha256: DISCLOSURE.sha256,
          checkboxChecked: true,
          consentedAt: "2026-02-01T00:00:00.000Z",
          ip: "2001:db8::1",
          userAgent: '=HYPERLINK("http://x","y")',
        },
      });
      expect(records[1]).toMatchObject({ duplicateOf: refs.first });
    });

    it("treats --since as inclusive and --until as exclusive, in UTC days", async () => {
      const refsOf = async (...argv: string[]) =>
        (await cli("export", ...argv, "--format", "ndjson")).output
          .split("\n")
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { reference: string }).reference);
      expect(await refsOf("--since", "2026-01-31", "--until", "2026-02-01")).toEqual([refs.before]);
      expect(await refsOf("--since", "2026-02-01", "--until", "2026-03-01")).toEqual([refs.first, refs.repeat]);
      expect(await refsOf("--since", "2026-02-01", "--until", "2026-03-02")).toEqual([refs.first, refs.repeat, refs.atUntil]);
      expect(await refsOf("--since", "2026-03-01")).toEqual([refs.atUntil]);
      expect(await refsOf("--since", "2026-03-02")).toEqual([]);
    });

    it("writes just the header, or nothing in NDJSON, when no lead is in range", async () => {
      expect((await cli("export", "--since", "2030-01-01")).output).toBe(`${COLUMNS.join(",")}\r\n`);
      expect(await cli("export", "--since", "2030-01-01", "--format", "ndjson")).toEqual({ code: 0, output: "" });
    });

    it("counts days in REPORT_TIME_ZONE, as the report and the console do", async () => {
      const refsOf = async (...argv: string[]) =>
        (await cliIn("America/New_York", "export", ...argv, "--format", "ndjson")).output
          .split("\n")
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { reference: string }).reference);
      // 2026-02-01T00:00Z is still January 31 in New York (19:00); its February starts at 05:00Z.
      expect(await refsOf("--since", "2026-01-31", "--until", "2026-02-01")).toEqual([refs.before, refs.first]);
      expect(await refsOf("--since", "2026-02-01", "--until", "2026-03-01")).toEqual([refs.repeat, refs.atUntil]);
    });

    it("exports the last 30 days, today included, without --since (the console's default range)", async () => {
      const now = Date.now();
      const recent = await withRepository(location, (repo) => create(repo, newLead(new Date(now - 60_000))));
      const older = await withRepository(location, (repo) => create(repo, newLead(new Date(now - 40 * 86_400_000))));
      const { code, output } = await cliIn("America/New_York", "export", "--format", "ndjson");
      expect(code).toBe(0);
      const exported = output.split("\n").filter(Boolean).map((line) => (JSON.parse(line) as { reference: string }).reference);
      expect(exported).toContain(recent);
      expect(exported).not.toContain(older);
      expect(exported).not.toContain(refs.repeat);
    });
  });

  describe("purge", () => {
    let location: Location;
    const refs: Record<string, string> = {};

    async function cli(...argv: string[]) {
      let output = "";
      const code = await run(argv, (text) => (output += text), location.env);
      return { code, output };
    }
    const counts = () => withRepository(location, (repo) => repo.counts());
    const references = () => withRepository(location, async (repo) => (await repo.list()).map((record) => record.reference));

    beforeAll(async () => {
      location = await make();
      const { leadCutoff, consentCutoff } = retentionCutoffs(new Date());
      await withRepository(location, async (repo) => {
        refs.sixYears = await create(repo, newLead(new Date(consentCutoff.getTime() - 365 * DAY_MS)));
        refs.fourYears = await create(repo, newLead(new Date(leadCutoff.getTime() - 365 * DAY_MS)));
        refs.threeYearsAndADay = await create(repo, newLead(new Date(leadCutoff.getTime() - DAY_MS)));
        refs.justUnderThreeYears = await create(repo, newLead(new Date(leadCutoff.getTime() + DAY_MS)));
        refs.yesterday = await create(repo, newLead(new Date(Date.now() - DAY_MS)));
      });
      // Deliveries: finished 6 years ago (goes), still pending 6 years on (stays: never finished),
      // finished 4 years ago (stays: 5 years). Privacy requests: closed 25 months ago (goes), open
      // 25 months ago (stays: never closed), closed 23 months ago (stays: 24 months).
      const monthsAgo = (months: number) => new Date(Date.now() - months * 30.5 * DAY_MS);
      await withCommandStore(location, async (db) => {
        const delivery = (key: string, status: string, at: Date) =>
          db.query("INSERT INTO deliveries (lead_reference, kind, target, idempotency_key, status, sale, created_at) VALUES ($1, 'buyer', 'summit', $2, $3, true, $4)", [refs.sixYears, key, status, at]);
        await delivery("old-accepted", "accepted", new Date(Date.now() - 6 * 365 * DAY_MS));
        await delivery("old-pending", "pending", new Date(Date.now() - 6 * 365 * DAY_MS));
        await delivery("recent-rejected", "rejected", new Date(Date.now() - 4 * 365 * DAY_MS));
        await db.query("INSERT INTO auctions (lead_reference, ping_id, status, created_at) VALUES ($1, 'old-ping', 'sold', $2), ($3, 'new-ping', 'unsold', $4)", [
          refs.sixYears,
          new Date(Date.now() - 6 * 365 * DAY_MS),
          refs.fourYears,
          new Date(Date.now() - 4 * 365 * DAY_MS),
        ]);
        const privacyRequest = (reference: string, status: string, at: Date) =>
          db.query(
            "INSERT INTO privacy_requests (reference, submission_id, request_type, email, status, received_at, due_at) VALUES ($1, gen_random_uuid(), 'access', 'ana@example.com', $2, $3, $3)",
            [reference, status, at],
          );
        await privacyRequest("PR-OLD0-DONE", "completed", monthsAgo(25));
        await privacyRequest("PR-OLD0-OPEN", "received", monthsAgo(25));
        await privacyRequest("PR-NEW0-DONE", "denied", monthsAgo(23));
        // A phone's cached check answers (issue 44): one past its CHECK_CACHE_DAYS, one still fresh.
        await db.query(
          `INSERT INTO check_cache (kind, phone_hash, provider, status, outcome, detail, checked_at, expires_at) VALUES
             ('litigator', 'expired-hash', 'tcpa-litigator-list', 'ok', 'clean', 'clean', now() - interval '10 days', now() - interval '3 days'),
             ('dnc', 'fresh-hash', 'tcpa-litigator-list', 'ok', 'clean', 'clean', now(), now() + interval '4 days')`,
        );
      });
      // Funnel events: one past the 396 days analytics keep, one from yesterday.
      await withCommandStore(location, (db) =>
        insertEvents(db, [
          { name: "campaign_hit", at: new Date(Date.now() - 400 * DAY_MS), sid: "old", tid: "t-old" },
          { name: "campaign_hit", at: new Date(Date.now() - DAY_MS), sid: "new", tid: "t-new" },
        ], "America/New_York"),
      );
    });
    afterAll(async () => {
      await location?.remove();
    });

    it("with --dry-run, says how many leads it would delete and deletes nothing", async () => {
      const { code, output } = await cli("purge", "--dry-run");
      expect(code).toBe(0);
      expect(output).toMatch(
        /^Would delete 3 lead\(s\) received before \d{4}-\d{2}-\d{2}T[\d:.]+Z and 1 consent record\(s\) given before \d{4}-\d{2}-\d{2}T[\d:.]+Z\.\nWould delete 1 finished delivery record\(s\) scheduled before \S+ \(5 years\)\.\nWould delete 1 closed privacy request\(s\) received before \S+ \(24 months; their opt-outs stay on the suppression list\)\.\nWould delete 1 analytics event\(s\) from before \S+ \(396 days\) and 1 daily report row\(s\) before \d{4}-\d{2}-\d{2}\.\nWould delete 1 cached phone check answer\(s\) past their CHECK_CACHE_DAYS\.\n$/,
      );
      expect(await counts()).toEqual({ leads: 5, consents: 5, duplicates: 0 });
    });

    it("deletes leads older than 3 years and consent records older than 5, keeping the rest", async () => {
      const { code, output } = await cli("purge");
      expect(code).toBe(0);
      expect(output).toMatch(
        /^Deleted 3 lead\(s\) received before .+ and 1 consent record\(s\) given before .+\.\nDeleted 1 finished delivery record\(s\) .+\nDeleted 1 closed privacy request\(s\) .+\nDeleted 1 analytics event\(s\) from before .+ \(396 days\) and 1 daily report row\(s\) before .+\.\nDeleted 1 cached phone check answer\(s\) past their CHECK_CACHE_DAYS\.\n$/,
      );
      const [leadCutoff, consentCutoff] = [...output.matchAll(/before (\S+?Z)/g)].map((match) => new Date(match[1]!));
      const { rows: deliveries } = await withCommandStore(location, (db) => db.query<{ idempotency_key: string }>("SELECT idempotency_key FROM deliveries ORDER BY idempotency_key"));
      expect(deliveries.map((row) => row.idempotency_key)).toEqual(["old-pending", "recent-rejected"]);
      const { rows: cached } = await withCommandStore(location, (db) => db.query<{ phone_hash: string }>("SELECT phone_hash FROM check_cache"));
      expect(cached.map((row) => row.phone_hash)).toEqual(["fresh-hash"]);
      const { rows: auctions } = await withCommandStore(location, (db) => db.query<{ ping_id: string }>("SELECT ping_id FROM auctions"));
      expect(auctions).toEqual([{ ping_id: "new-ping" }]);
      const { rows: requests } = await withCommandStore(location, (db) => db.query<{ reference: string }>("SELECT reference FROM privacy_requests ORDER BY reference"));
      expect(requests.map((row) => row.reference)).toEqual(["PR-NEW0-DONE", "PR-OLD0-OPEN"]);
      const { rows: events } = await withCommandStore(location, (db) => db.query<{ sid: string }>("SELECT sid FROM analytics_events"));
      expect(events).toEqual([{ sid: "new" }]);
      const expected = retentionCutoffs(new Date());
      expect(Math.abs(leadCutoff!.getTime() - expected.leadCutoff.getTime())).toBeLessThan(60_000);
      expect(Math.abs(consentCutoff!.getTime() - expected.consentCutoff.getTime())).toBeLessThan(60_000);

      expect(await references()).toEqual([refs.justUnderThreeYears, refs.yesterday]);
      expect(await counts()).toEqual({ leads: 2, consents: 4, duplicates: 0 });
      const db = await openDatabase(location.options);
      try {
        const { rows } = await db.query<{ lead_reference: string; lead_id: string | null }>("SELECT lead_reference, lead_id::text FROM lead_consents ORDER BY consented_at");
        expect(rows.map((row) => [row.lead_reference, row.lead_id === null])).toEqual([
          [refs.fourYears, true],
          [refs.threeYearsAndADay, true],
          [refs.justUnderThreeYears, false],
          [refs.yesterday, false],
        ]);
      } finally {
        await db.close();
      }
    });

    it("deletes nothing more when run again the same day", async () => {
      expect((await cli("purge")).output).toMatch(/^Deleted 0 lead\(s\) .* and 0 consent record\(s\) .*\nDeleted 0 finished delivery record\(s\) .*\nDeleted 0 closed privacy request\(s\) /);
      expect(await counts()).toEqual({ leads: 2, consents: 4, duplicates: 0 });
    });
  });
});

describe("npm run leads: the command line", () => {
  /** A store that cannot be reached: every refusal below must come before the command opens it. */
  const unreachable = { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", DATA_DIR: "unused" };
  async function cli(...argv: string[]) {
    let output = "";
    const code = await run(argv, (text) => (output += text), unreachable);
    return { code, output };
  }

  it("prints the usage with exit code 2 without a command, 0 with --help", async () => {
    const none = await cli();
    expect(none.code).toBe(2);
    expect(none.output).toMatch(/^Usage: npm run leads -- <command>/);
    expect(none.output).toMatch(/export\s+\[--since YYYY-MM-DD\]/);
    expect(none.output).toMatch(/purge\s+\[--dry-run\]/);
    expect(await cli("--help")).toEqual({ code: 0, output: none.output });
  });

  it("says in its usage that the export counts days in REPORT_TIME_ZONE and defaults to the last 30", async () => {
    const { output } = await cli("--help");
    expect(output).toMatch(/export\s+\[--since YYYY-MM-DD\]/);
    expect(output).toMatch(/days in\s+REPORT_TIME_ZONE/);
    expect(output).toMatch(/since to 30 days before until/);
  });

  it("refuses an unknown format, a bad date, an empty range and an unknown command", async () => {
    await expect(cli("export", "--since", "2026-02-01", "--format", "xlsx")).rejects.toThrow(new UsageError("Unknown format xlsx: use csv or ndjson."));
    await expect(cli("export", "--since", "yesterday")).rejects.toThrow(new UsageError("--since must be a date like 2026-01-31."));
    await expect(cli("export", "--since", "2026-02-01", "--until", "2026-1-5")).rejects.toThrow(new UsageError("--until must be a date like 2026-01-31."));
    await expect(cli("export", "--since", "2026-02-01", "--until", "2026-02-01")).rejects.toThrow(new UsageError("--until must be after --since."));
    await expect(cli("export", "--since", "2026-02-02", "--until", "2026-02-01")).rejects.toThrow(UsageError);
    await expect(cli("frobnicate")).rejects.toThrow(/^Unknown command frobnicate\./);
    await expect(cli("export", "--since", "2026-02-01", "--sinse", "x")).rejects.toMatchObject({ code: "ERR_PARSE_ARGS_UNKNOWN_OPTION" });
  });

  // V8 rolls impossible days over ("2026-02-30" would be 2 March): an export must not start late.
  it("refuses an impossible calendar date instead of rolling it over to the next month", async () => {
    await expect(cli("export", "--since", "2026-02-30")).rejects.toThrow(new UsageError("--since must be a date like 2026-01-31."));
    await expect(cli("export", "--since", "2026-02-01", "--until", "2026-04-31")).rejects.toThrow(new UsageError("--until must be a date like 2026-01-31."));
  });

  it("exits with code 2 and the message on stderr when run as a script with a usage mistake", () => {
    const script = path.join(ROOT, "server/cli/leads.ts");
    const result = spawnSync(process.execPath, ["--import", "tsx", script, "export", "--format", "xlsx"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...unreachable },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe("Unknown format xlsx: use csv or ndjson.\n");
    expect(result.stdout).toBe("");
  });
});
