import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatRows, run } from "../../server/cli/privacy-requests";
import { openDatabase } from "../../server/db/database";
import { migrate } from "../../server/db/migrate";
import { privacyRequestRepository, type PrivacyRequestRecord } from "../../server/db/privacy-requests";

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
