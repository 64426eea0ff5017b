import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatRows, run } from "../../server/cli/privacy-requests";
import { openDatabase } from "../../server/db/database";
import { migrate } from "../../server/db/migrate";
import { privacyRequestRepository, type PrivacyRequestRecord } from "../../server/db/privacy-requests";
import { dueDate } from "../../server/privacy/deadlines";
import { PRIVACY_REFERENCE_PATTERN } from "../../shared/privacy-request";
import { commandStores } from "../support/databases";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "privacy-cli-"));
const env = { DATA_DIR: dataDir };
const refs: string[] = [];

async function cli(...argv: string[]) {
  let output = "";
  const code = await run(argv, (text) => (output += text), env);
  return { code, output };
}

beforeAll(async () => {
  const db = await openDatabase({ DATA_DIR: dataDir });
  await migrate(db);
  const repository = privacyRequestRepository(db);
  const rows = [
    { receivedAt: new Date("2026-01-05T10:00:00Z"), dueAt: new Date("2026-01-26T10:00:00Z"), email: "old@example.com" },
    { receivedAt: new Date("2026-02-10T10:00:00Z"), dueAt: new Date("2099-03-01T10:00:00Z"), email: "=HYPERLINK(\"x\")" },
  ];
  for (const [index, row] of rows.entries()) {
    const result = await repository.create({ requestType: "opt_out_sale_sharing", submissionId: `00000000-0000-4000-8000-00000000000${index}`, gpc: index === 1, ...row });
    if (result.created) refs.push(result.reference);
  }
  await db.close();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("npm run privacy-requests", () => {
  it("lists requests in a date range as CSV with a header, safe for spreadsheets", async () => {
    const { code, output } = await cli("list", "--since", "2026-02-01", "--format", "csv");
    expect(code).toBe(0);
    const lines = output.trim().split("\r\n");
    expect(lines[0]).toBe("reference,type,status,received_at,due_at,email,phone,state,gpc,details,closed_at,note");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(refs[1]);
    expect(lines[1]).toContain(`"'=HYPERLINK(""x"")"`);
  });

  it("lists as JSON and as a table", async () => {
    const json = JSON.parse((await cli("list", "--format", "json")).output) as Array<Record<string, string>>;
    expect(json.map((row) => row.reference)).toEqual(refs);
    expect((await cli("list")).output).toContain("2 request(s)");
  });

  it("shows overdue open requests only", async () => {
    const { output } = await cli("overdue", "--format", "json");
    expect((JSON.parse(output) as Array<{ reference: string }>).map((row) => row.reference)).toEqual([refs[0]]);
  });

  it("completes a request once, and says so when it is already closed or unknown", async () => {
    expect(await cli("complete", refs[0]!.toLowerCase(), "--note", "suppressed")).toEqual({ code: 0, output: `${refs[0]} marked completed.\n` });
    expect(await cli("complete", refs[0]!)).toEqual({ code: 1, output: `${refs[0]} is already completed.\n` });
    expect((await cli("complete", "PR-0000-0000")).output).toBe("No privacy request PR-0000-0000.\n");
    const { output } = await cli("list", "--status", "completed", "--format", "json");
    expect(JSON.parse(output)).toMatchObject([{ reference: refs[0], status: "completed", note: "suppressed" }]);
  });

  it("refuses a denial without a reason, bad dates, bad references and unknown commands", async () => {
    await expect(cli("deny", refs[1]!)).rejects.toThrow(/--note/);
    await expect(cli("list", "--since", "yesterday")).rejects.toThrow(/2026-01-31/);
    await expect(cli("complete", "12345")).rejects.toThrow(/PR-7K3M-Q9XD/);
    await expect(cli("frobnicate")).rejects.toThrow(/Unknown command/);
    expect((await cli()).code).toBe(2);
  });

  it("purges only closed requests older than the retention period", async () => {
    const { output } = await cli("purge", "--older-than-months", "1");
    expect(output).toMatch(/^Deleted 1 closed request/);
    expect(JSON.parse((await cli("list", "--format", "json")).output)).toHaveLength(1);
  });
});

describe("formatRows", () => {
  it("quotes commas, quotes and line breaks", () => {
    const row: PrivacyRequestRecord = {
      reference: "PR-AAAA-BBBB",
      requestType: "correction",
      email: "a@example.com",
      phone: null,
      state: null,
      details: 'line one, "two"\nthree',
      gpc: false,
      status: "received",
      receivedAt: new Date("2026-01-01T00:00:00Z"),
      dueAt: new Date("2026-02-15T00:00:00Z"),
      closedAt: null,
      resolutionNote: null,
    };
    expect(formatRows([row], "csv").split("\r\n")[1]).toContain('"line one, ""two""\nthree"');
  });
});

/** A store the command reaches through its environment (as in production), and how to remove it. */
const LOCATIONS = commandStores({}, { running: true });

describe.each(LOCATIONS)("npm run privacy-requests -- record and suppressed ($kind)", ({ make }) => {
  let location: { env: NodeJS.ProcessEnv; remove(): Promise<void> };

  async function cli(...argv: string[]) {
    let output = "";
    const code = await run(argv, (text) => (output += text), location.env);
    return { code, output };
  }
  const listed = async () => JSON.parse((await cli("list", "--format", "json")).output) as Array<Record<string, string>>;

  beforeAll(async () => {
    location = await make();
    // Creates and migrates the store, so the first test does not pay for it.
    expect((await cli("list")).output).toBe("No privacy requests.\n");
  });
  afterAll(async () => {
    await location?.remove();
  });

  it("records an opt-out made by phone like the web form does, prints its reference and suppresses the contact", async () => {
    const before = Date.now();
    const { code, output } = await cli("record", "--type", "opt_out_sale_sharing", "--phone", "(415) 555-0134", "--email", "Caller@Example.com", "--state", "ca", "--via", "phone");
    expect(code).toBe(0);
    const reference = output.split("\n")[0]!;
    expect(reference).toMatch(PRIVACY_REFERENCE_PATTERN);
    expect(output).toContain("The email and phone are on the suppression list");
    const [row] = (await listed()).filter((request) => request.reference === reference);
    expect(row).toMatchObject({ type: "opt_out_sale_sharing", status: "received", email: "caller@example.com", phone: "+14155550134", state: "CA", gpc: "false" });
    const received = new Date(row!.received_at!);
    expect(received.getTime()).toBeGreaterThanOrEqual(before);
    expect(row!.due_at).toBe(dueDate("opt_out_sale_sharing", received).toISOString());

    const check = await cli("suppressed", "--phone", "+1 415 555 0134");
    expect(check.code).toBe(0);
    expect(check.output).toMatch(new RegExp(`^The phone is on the suppression list since \\S+ \\(phone, ${reference}\\)\\.\\n$`));
    expect((await cli("suppressed", "--email", "CALLER@example.com")).output).toContain(`(phone, ${reference})`);
  });

  it("records a Nevada opt-out by email, and a request to know without suppressing anyone", async () => {
    const nevada = await cli("record", "--type", "nevada_opt_out", "--email", "nv@example.com", "--via", "email", "--format", "json");
    const stored = JSON.parse(nevada.output) as Record<string, unknown>;
    expect(stored).toMatchObject({ type: "nevada_opt_out", via: "email", suppressed: true });
    expect(stored.due_at).toBe(new Date(new Date(stored.received_at as string).getTime() + 60 * 86_400_000).toISOString());
    expect((await cli("suppressed", "--email", "nv@example.com")).output).toContain(`(email, ${stored.reference as string})`);

    const access = await cli("record", "--type", "access", "--email", "know@example.com", "--via", "email");
    expect(access.code).toBe(0);
    expect(access.output).not.toContain("suppression list");
    expect(await cli("suppressed", "--email", "know@example.com")).toEqual({ code: 1, output: "Not on the suppression list.\n" });

    const correction = await cli("record", "--type", "correction", "--phone", "4155550199", "--details", "My ZIP is 94110", "--via", "phone");
    const reference = correction.output.split("\n")[0]!;
    expect((await listed()).find((row) => row.reference === reference)).toMatchObject({ type: "correction", details: "My ZIP is 94110" });
  });

  it("takes the day the request arrived, so the deadline runs from receipt", async () => {
    const { output } = await cli("record", "--type", "deletion", "--email", "late@example.com", "--via", "email", "--received", "2026-01-05", "--format", "json");
    expect(JSON.parse(output)).toMatchObject({ received_at: "2026-01-05T00:00:00.000Z", due_at: "2026-02-19T00:00:00.000Z" });
    await expect(cli("record", "--type", "deletion", "--email", "late@example.com", "--via", "email", "--received", "2999-01-01")).rejects.toThrow(/future/);
    await expect(cli("record", "--type", "deletion", "--email", "late@example.com", "--via", "email", "--received", "last week")).rejects.toThrow(/--received/);
  });

  it("keeps the opt-out on the list when its closed request is purged", async () => {
    const { output } = await cli("record", "--type", "opt_out_sale_sharing", "--email", "purged@example.com", "--via", "email", "--received", "2020-02-03");
    const reference = output.split("\n")[0]!;
    expect((await cli("complete", reference, "--note", "suppressed at partners")).code).toBe(0);
    expect((await cli("purge", "--older-than-months", "24")).output).toMatch(/^Deleted [1-9]\d* closed request/);
    expect((await listed()).some((row) => row.reference === reference)).toBe(false);
    expect((await cli("suppressed", "--email", "purged@example.com")).output).toContain(`(email, ${reference})`);
  });

  it("refuses what it cannot store, naming the option", async () => {
    await expect(cli("record", "--type", "opt_out", "--email", "a@example.com", "--via", "phone")).rejects.toThrow(/--type must be one of revoke_consent, opt_out_sale_sharing/);
    await expect(cli("record", "--type", "access", "--email", "a@example.com")).rejects.toThrow(/--via must be phone or email/);
    await expect(cli("record", "--type", "access", "--email", "a@example.com", "--via", "web")).rejects.toThrow(/--via/);
    await expect(cli("record", "--type", "access", "--via", "email")).rejects.toThrow(/--email: Give an email address or a phone number/);
    await expect(cli("record", "--type", "access", "--phone", "12345", "--via", "phone")).rejects.toThrow(/--phone: Enter a 10-digit US phone number/);
    await expect(cli("record", "--type", "access", "--email", "a@example.com", "--state", "ZZ", "--via", "email")).rejects.toThrow(/--state/);
    await expect(cli("record", "--type", "access", "--email", "a@example.com", "--details", "x", "--via", "email")).rejects.toThrow(/--details is kept only for a correction/);
    await expect(cli("suppressed")).rejects.toThrow(/Give an email address or a phone number/);
    await expect(cli("suppressed", "--phone", "555")).rejects.toThrow(/not a US phone number/);
    await expect(cli("record", "--type", "access", "--email", "a@example.com", "--via", "email", "--format", "csv")).rejects.toThrow(/table or json/);
  });
});
