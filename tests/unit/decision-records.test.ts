/**
 * The decision records (docs/decisions/) stay findable: every record has a date and a status line,
 * and the index lists each record with the same status.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const folder = fileURLToPath(new URL("../../docs/decisions/", import.meta.url));
const records = readdirSync(folder).filter((name) => /^\d{3}-.+\.md$/.test(name)).sort();
const index = readFileSync(path.join(folder, "README.md"), "utf8");

describe("decision records", () => {
  it("exist, numbered without gaps", () => {
    expect(records.length).toBeGreaterThanOrEqual(8);
    records.forEach((name, i) => expect(name.slice(0, 3), name).toBe(String(i + 1).padStart(3, "0")));
  });

  it.each(records)("%s has a date and a status, and its row in the index says the same", (name) => {
    const text = readFileSync(path.join(folder, name), "utf8");
    const date = /^\*\*Date:\*\* (\d{4}-\d{2}-\d{2})$/m.exec(text)?.[1];
    const status = /^\*\*Status:\*\* (Accepted|Superseded by \[\d{3}\]\(\d{3}-[^)]+\.md\))$/m.exec(text)?.[1];
    expect(date, "a **Date:** YYYY-MM-DD line").toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(status, "a **Status:** Accepted | Superseded by [NNN](…) line").toBeTypeOf("string");
    const row = index.split("\n").find((line) => line.startsWith(`| [${name.slice(0, 3)}](${name})`));
    expect(row, `a row for ${name} in docs/decisions/README.md`).toBeTypeOf("string");
    expect(row).toContain(`| ${date} |`);
    expect(row).toContain(`| ${status} |`);
  });
});
