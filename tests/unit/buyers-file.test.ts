/**
 * BUYERS_FILE (server/delivery/buyers.ts): the documented example loads as it is, every mistake an
 * operator can make is refused with a line naming where it is and what is wanted, and the rules
 * that decide whether a buyer takes a lead now (state, schedule in its own time zone, its day for
 * the daily cap) hold at the edges: weekday boundaries, daylight-saving changes, other zones.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BuyersFileError, buyerDay, buyerSchema, checkBuyersFile, isOpen, loadBuyersFile, takesState, type Buyer } from "../../server/delivery/buyers";
import { NO_EXCEPTIONS, parseAllowList } from "../../server/delivery/outbound";
import { projectRoot } from "../../tools/production-server";

const EXAMPLE = path.join(projectRoot, "deploy", "buyers.example.json");
const dir = mkdtempSync(path.join(os.tmpdir(), "buyers-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Json = Record<string, unknown> & { buyers: Record<string, unknown>[]; sources: Record<string, unknown>[] };
const example = (): Json => JSON.parse(readFileSync(EXAMPLE, "utf8")) as Json;

let written = 0;
/** Writes `content` (JSON unless a string) to a file of its own and returns its path. */
function fileWith(content: unknown): string {
  written += 1;
  const file = path.join(dir, `buyers-${written}.json`);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

/** The problem lines of the error loading the example changed by `change`. */
function problemsOf(change: (file: Json) => void): string[] {
  const file = example();
  change(file);
  const at = fileWith(file);
  try {
    loadBuyersFile(at);
  } catch (error) {
    expect(error).toBeInstanceOf(BuyersFileError);
    const [first, ...lines] = (error as Error).message.split("\n");
    expect(first).toBe(`Invalid BUYERS_FILE ${at}:`);
    return lines.map((line) => line.replace(/^ {2}- /, ""));
  }
  throw new Error("the file was accepted");
}

describe("the example buyers file (deploy/buyers.example.json)", () => {
  const file = loadBuyersFile(EXAMPLE);

  it("passes the checks the server runs at start-up", () => {
    expect(file.buyers.map((buyer) => buyer.id)).toEqual(["summit", "harbor"]);
    expect(file.sources.map((source) => source.sid)).toEqual(["fb01"]);
  });

  it("has a capped, priced buyer for CA, TX and NY, and one for every state on weekdays 08:00–20:00 New York time", () => {
    const [summit, harbor] = file.buyers;
    expect(summit).toMatchObject({ name: "Summit Auto Insurance Agency", states: ["CA", "TX", "NY"], caps: { day: 200 }, price: 18.5 });
    expect(harbor).toMatchObject({ name: "Harbor Insurance Group", schedule: { timeZone: "America/New_York", days: ["mon", "tue", "wed", "thu", "fri"], from: "08:00", to: "20:00" } });
    expect(harbor!.states).toBeUndefined();
  });

  it("shows a buyer's filters (server/delivery/filter-schema.ts); a buyer without them takes every lead", () => {
    const [summit, harbor] = file.buyers;
    expect(summit!.filters).toEqual({ zipPrefixes: { exclude: ["100"] }, driverAge: { min: 18, max: 85 }, currentlyInsured: true, maxAccidents: 2, dui: false });
    expect(harbor!.filters).toBeUndefined();
  });

  it("points every buyer and the postback at the local buyer stub (npm run buyer-stub, port 4100)", () => {
    for (const buyer of file.buyers) expect(buyer.url).toBe(`http://127.0.0.1:4100/leads/${buyer.id}`);
    expect(file.sources[0]!.postbackUrl).toBe("http://127.0.0.1:4100/postback?tid={tid}&payout={payout}&status={status}");
  });

  it("has secrets that are plainly examples, long enough to be accepted", () => {
    for (const buyer of file.buyers) {
      expect(buyer.secret).toMatch(/example/);
      expect(buyer.secret.length).toBeGreaterThanOrEqual(32);
    }
    expect(new Set(file.buyers.map((buyer) => buyer.secret)).size).toBe(file.buyers.length);
  });

  it("fills in the defaults: a 5 s timeout, no sources, every day and the whole day of a schedule", () => {
    const minimal = loadBuyersFile(
      fileWith({
        buyers: [{ id: "acme", name: "Acme Insurance Agency", url: "https://buyer.example/leads", secret: "x".repeat(32), price: 10, schedule: { timeZone: "America/Chicago" } }],
      }),
    );
    expect(minimal.sources).toEqual([]);
    expect(minimal.buyers[0]).toMatchObject({ timeoutMs: 5_000, schedule: { timeZone: "America/Chicago", days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], from: "00:00", to: "24:00" } });
    expect(minimal.buyers[0]!.caps).toBeUndefined();
    expect(minimal.buyers[0]!.states).toBeUndefined();
  });
});

describe("a bad buyers file is refused, naming each problem", () => {
  it("refuses two buyers with the same id (and the same name, or two sources with the same sid)", () => {
    expect(problemsOf((file) => (file.buyers[1]!.id = "summit"))).toEqual(["buyers: buyer id summit is listed twice"]);
    expect(problemsOf((file) => (file.buyers[1]!.name = "Summit Auto Insurance Agency"))).toEqual(["buyers: buyer name Summit Auto Insurance Agency is listed twice"]);
    expect(problemsOf((file) => file.sources.push({ ...file.sources[0] }))).toEqual(["sources: source sid fb01 is listed twice"]);
  });

  it("refuses a bad filter with the buyer's place and the field's (the filters' own tests: tests/unit/offer.test.ts)", () => {
    expect(problemsOf((file) => (file.buyers[1]!.filters = { zips: { exclude: ["9021"] }, driverAge: { min: 30, max: 25 } }))).toEqual([
      "buyers.1.filters.zips.exclude.0: a 5-digit ZIP code, like 90210",
      "buyers.1.filters.driverAge.max: min must not be more than max",
    ]);
    expect(problemsOf((file) => (file.buyers[0]!.filters = { maxAcidents: 1 }))).toEqual([expect.stringMatching(/^buyers\.0\.filters: Unrecognized key: "maxAcidents"/)]);
  });

  it("takes a buyer's public phone for the matches step as a US number, stored in E.164, and refuses anything else", () => {
    const file = example();
    file.buyers[0]!.phone = "(415) 555-0101";
    expect(loadBuyersFile(fileWith(file)).buyers[0]!.phone).toBe("+14155550101");
    expect(problemsOf((file) => (file.buyers[0]!.phone = "555-0101"))).toEqual(["buyers.0.phone: a 10-digit US phone number, like (415) 555-0134"]);
  });

  it("refuses a secret shorter than 32 characters", () => {
    expect(problemsOf((file) => (file.buyers[0]!.secret = "x".repeat(31)))).toEqual(["buyers.0.secret: at least 32 characters"]);
  });

  it("refuses a state that is not a two-letter US code, and an empty state list", () => {
    expect(problemsOf((file) => (file.buyers[0]!.states = ["CA", "XX"]))).toEqual(["buyers.0.states.1: a two-letter US state code, like CA"]);
    expect(problemsOf((file) => (file.buyers[0]!.states = ["ca"]))).toEqual(["buyers.0.states.0: a two-letter US state code, like CA"]);
    expect(problemsOf((file) => (file.buyers[0]!.states = []))).toEqual([expect.stringMatching(/^buyers\.0\.states: Too small/)]);
  });

  it("refuses a schedule with an unknown time zone, a malformed time, an unknown day or a window that ends before it starts", () => {
    const schedule = (file: Json) => file.buyers[1]!.schedule as Record<string, unknown>;
    expect(problemsOf((file) => (schedule(file).timeZone = "Mars/Olympus_Mons"))).toEqual(["buyers.1.schedule.timeZone: an IANA time zone such as America/New_York"]);
    expect(problemsOf((file) => (schedule(file).to = "8pm"))).toEqual(['buyers.1.schedule.to: a time of day as "HH:MM" (24-hour)']);
    expect(problemsOf((file) => (schedule(file).from = "24:00"))).toContain('buyers.1.schedule.from: a time of day as "HH:MM" (24-hour)');
    expect(problemsOf((file) => (schedule(file).days = ["monday"]))).toEqual([expect.stringMatching(/^buyers\.1\.schedule\.days\.0: Invalid option/)]);
    expect(problemsOf((file) => (schedule(file).days = []))).toEqual([expect.stringMatching(/^buyers\.1\.schedule\.days: Too small/)]);
    expect(problemsOf((file) => Object.assign(schedule(file), { from: "20:00", to: "08:00" }))).toEqual(["buyers.1.schedule.to: from must be before to"]);
    expect(problemsOf((file) => Object.assign(schedule(file), { from: "09:00", to: "09:00" }))).toEqual(["buyers.1.schedule.to: from must be before to"]);
  });

  it("refuses a postback address without {tid}", () => {
    expect(problemsOf((file) => (file.sources[0]!.postbackUrl = "https://network.example/pb?click={click}&status={status}"))).toEqual(["sources.0.postbackUrl: must contain {tid}"]);
  });

  it("refuses a buyer or postback address that is not http(s)", () => {
    expect(problemsOf((file) => (file.buyers[0]!.url = "ftp://buyer.example/leads"))).toEqual(["buyers.0.url: an http(s) URL"]);
    expect(problemsOf((file) => (file.buyers[0]!.url = "buyer.example/leads"))).toEqual(["buyers.0.url: an http(s) URL"]);
    expect(problemsOf((file) => (file.sources[0]!.postbackUrl = "javascript:alert('{tid}')"))).toEqual(["sources.0.postbackUrl: an http(s) URL"]);
  });

  it("refuses a malformed id, a negative price, a fractional cap, a too-short timeout and a bad sid", () => {
    expect(problemsOf((file) => (file.buyers[0]!.id = "Summit Agency"))).toEqual(["buyers.0.id: lower-case letters, digits, - and _, at most 32"]);
    expect(problemsOf((file) => (file.buyers[0]!.price = -1))).toEqual([expect.stringMatching(/^buyers\.0\.price: Too small/)]);
    expect(problemsOf((file) => (file.buyers[0]!.caps = { day: 2.5 }))).toEqual([expect.stringMatching(/^buyers\.0\.caps\.day: /)]);
    expect(problemsOf((file) => (file.buyers[0]!.timeoutMs = 50))).toEqual([expect.stringMatching(/^buyers\.0\.timeoutMs: Too small/)]);
    expect(problemsOf((file) => (file.sources[0]!.sid = "fb 01"))).toEqual(["sources.0.sid: Only letters, digits and - _ . ~ are allowed"]);
  });

  it("lists every problem at once", () => {
    const problems = problemsOf((file) => {
      file.buyers[0]!.secret = "short";
      file.buyers[1]!.url = "ftp://x.example";
      file.sources[0]!.postbackUrl = "https://network.example/pb";
    });
    expect(problems).toEqual(["buyers.0.secret: at least 32 characters", "buyers.1.url: an http(s) URL", "sources.0.postbackUrl: must contain {tid}"]);
  });

  it("refuses a file without buyers, a file that is not JSON, and a file that is not there", () => {
    expect(problemsOf((file) => delete (file as Partial<Json>).buyers)).toEqual([expect.stringMatching(/^buyers: Invalid input/)]);
    const garbage = fileWith("{ buyers: [");
    expect(() => loadBuyersFile(garbage)).toThrow(BuyersFileError);
    expect(() => loadBuyersFile(garbage)).toThrow(new RegExp(`^Invalid BUYERS_FILE ${garbage}:\\n  - .*JSON`));
    const missing = path.join(dir, "missing.json");
    expect(() => loadBuyersFile(missing)).toThrow(/ENOENT/);
  });
});

describe("which buyer takes a lead, and when", () => {
  const buyer = (overrides: Partial<Buyer> = {}): Buyer => ({ ...buyerSchema.parse({ id: "acme", name: "Acme Insurance Agency", url: "https://buyer.example/leads", secret: "x".repeat(32), price: 10 }), ...overrides });
  const weekdays = { timeZone: "America/New_York", days: ["mon", "tue", "wed", "thu", "fri"], from: "08:00", to: "20:00" } satisfies Buyer["schedule"];
  const harbor = buyer({ schedule: weekdays });
  const at = (iso: string) => new Date(iso);

  it("takes leads from its states only; without a list, from every state", () => {
    const summit = buyer({ states: ["CA", "TX", "NY"] });
    expect(["CA", "TX", "NY"].map((state) => takesState(summit, state))).toEqual([true, true, true]);
    expect(takesState(summit, "FL")).toBe(false);
    expect(takesState(summit, "ca")).toBe(false);
    expect(["CA", "FL", "AK", "DC"].every((state) => takesState(buyer(), state))).toBe(true);
  });

  it("without a schedule, is always open", () => {
    expect(isOpen(buyer(), at("2026-03-08T07:30:00Z"))).toBe(true);
    expect(isOpen(buyer(), at("2026-12-26T03:00:00Z"))).toBe(true);
  });

  it("opens at 08:00 and closes at 20:00 in its own time zone (the end is exclusive), in winter (EST, UTC−5)", () => {
    // Monday 2 February 2026.
    expect(isOpen(harbor, at("2026-02-02T12:59:59Z"))).toBe(false); // 07:59:59
    expect(isOpen(harbor, at("2026-02-02T13:00:00Z"))).toBe(true); // 08:00
    expect(isOpen(harbor, at("2026-02-03T00:59:59Z"))).toBe(true); // 19:59:59
    expect(isOpen(harbor, at("2026-02-03T01:00:00Z"))).toBe(false); // 20:00
  });

  it("follows daylight saving time: the same UTC instant is 08:30 in summer and 07:30 in winter", () => {
    // Tuesday 10 March 2026 (EDT, UTC−4, since Sunday 8 March) and Tuesday 3 March 2026 (EST).
    expect(isOpen(harbor, at("2026-03-10T12:30:00Z"))).toBe(true);
    expect(isOpen(harbor, at("2026-03-03T12:30:00Z"))).toBe(false);
    // Tuesday 3 November 2026, after the change back (EST): 20:30 UTC is 15:30, 00:30 UTC is 19:30.
    expect(isOpen(harbor, at("2026-11-04T00:30:00Z"))).toBe(true);
    expect(isOpen(harbor, at("2026-11-04T01:00:00Z"))).toBe(false);
  });

  it("is closed at the weekend, by the buyer's weekday rather than UTC's", () => {
    // Friday 6 February 2026, 19:59 in New York, is already Saturday in UTC.
    expect(isOpen(harbor, at("2026-02-07T00:59:00Z"))).toBe(true);
    // Saturday noon and Sunday noon in New York.
    expect(isOpen(harbor, at("2026-02-07T17:00:00Z"))).toBe(false);
    expect(isOpen(harbor, at("2026-02-08T17:00:00Z"))).toBe(false);
    // Monday 9 February 08:00 in New York, while it is still Sunday in Los Angeles.
    expect(isOpen(harbor, at("2026-02-09T13:00:00Z"))).toBe(true);
    const west = buyer({ schedule: { ...weekdays, timeZone: "America/Los_Angeles", from: "00:00", to: "24:00" } });
    expect(isOpen(west, at("2026-02-09T07:59:00Z"))).toBe(false); // Sunday 23:59 in Los Angeles
    expect(isOpen(west, at("2026-02-09T08:00:00Z"))).toBe(true); // Monday 00:00 there
  });

  it("never opens in the hour a spring-forward skips, and opens twice in the hour a fall-back repeats", () => {
    const twoToThree = buyer({ schedule: { timeZone: "America/New_York", days: ["sun"], from: "02:00", to: "03:00" } });
    expect(isOpen(twoToThree, at("2026-03-08T06:59:59Z"))).toBe(false); // 01:59:59 EST
    expect(isOpen(twoToThree, at("2026-03-08T07:00:00Z"))).toBe(false); // 03:00 EDT: 02:00–03:00 never happened
    const oneToTwo = buyer({ schedule: { timeZone: "America/New_York", days: ["sun"], from: "01:00", to: "02:00" } });
    expect(isOpen(oneToTwo, at("2026-11-01T05:30:00Z"))).toBe(true); // 01:30 EDT
    expect(isOpen(oneToTwo, at("2026-11-01T06:30:00Z"))).toBe(true); // 01:30 EST, the hour again
    expect(isOpen(oneToTwo, at("2026-11-01T07:00:00Z"))).toBe(false); // 02:00 EST
  });

  it("keeps to a time zone without daylight saving time", () => {
    const honolulu = buyer({ schedule: { ...weekdays, timeZone: "Pacific/Honolulu" } });
    // 18:00 UTC is 08:00 in Honolulu (UTC−10) all year.
    expect(isOpen(honolulu, at("2026-01-05T18:00:00Z"))).toBe(true);
    expect(isOpen(honolulu, at("2026-07-06T18:00:00Z"))).toBe(true);
    expect(isOpen(honolulu, at("2026-07-06T17:59:00Z"))).toBe(false);
  });

  it("counts its daily cap by its own calendar day: its schedule's time zone, else US Eastern", () => {
    // US Eastern by default: the day turns at 05:00 UTC in winter and 04:00 UTC in summer.
    expect(buyerDay(buyer(), at("2026-02-03T04:59:59Z"))).toBe("2026-02-02");
    expect(buyerDay(buyer(), at("2026-02-03T05:00:00Z"))).toBe("2026-02-03");
    expect(buyerDay(buyer(), at("2026-07-07T03:59:59Z"))).toBe("2026-07-06");
    expect(buyerDay(buyer(), at("2026-07-07T04:00:00Z"))).toBe("2026-07-07");
    // A buyer in Los Angeles is still on the 6th when New York is on the 7th; one in Honolulu, longer.
    const west = buyer({ schedule: { ...weekdays, timeZone: "America/Los_Angeles" } });
    expect(buyerDay(west, at("2026-07-07T06:59:59Z"))).toBe("2026-07-06");
    expect(buyerDay(west, at("2026-07-07T07:00:00Z"))).toBe("2026-07-07");
    const honolulu = buyer({ schedule: { ...weekdays, timeZone: "Pacific/Honolulu" } });
    expect(buyerDay(honolulu, at("2026-07-07T09:59:59Z"))).toBe("2026-07-06");
    // Across the year's end.
    expect(buyerDay(buyer(), at("2027-01-01T04:59:59Z"))).toBe("2026-12-31");
    expect(buyerDay(buyer(), at("2027-01-01T05:00:00Z"))).toBe("2027-01-01");
  });
});

describe("checkBuyersFile: BUYERS_FILE as its start-up import takes it", () => {
  const production = { enforce: true, allow: NO_EXCEPTIONS };
  it("takes the example buyers with their own specs, which leave their secret to the import", () => {
    const parsed = parseAllowList("127.0.0.1");
    if ("problems" in parsed) throw new Error(parsed.problems.join("; "));
    const allowLoopback = { enforce: true, allow: parsed.allow };
    for (const name of ["acme-form-xml.json", "bolt-json.json", "cobalt-pingpost.json"]) {
      const file = path.join(projectRoot, "deploy", "buyer-specs", name);
      expect(() => checkBuyersFile(file, allowLoopback)).not.toThrow();
      // loadBuyersFile, for commands that use the file's buyers themselves, still needs their secrets.
      expect(() => loadBuyersFile(file)).toThrow(/secret/);
    }
  });

  it("refuses what the import would refuse, naming each problem: a bad value, an internal address in production", () => {
    const file = fileWith({ buyers: [{ id: "x", name: "X Agency", url: "https://10.0.0.5/leads", price: -1 }] });
    expect(() => checkBuyersFile(file, production)).toThrow(/buyers\.0\.price/);
    const fine = fileWith({ buyers: [{ id: "x", name: "X Agency", url: "https://10.0.0.5/leads", price: 1 }] });
    expect(() => checkBuyersFile(fine, production)).toThrow(/buyers\.0\.url: 10\.0\.0\.5 is a private address/);
  });
});
