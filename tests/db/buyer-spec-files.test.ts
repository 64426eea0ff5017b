/**
 * The three example buyers of issue 43 (deploy/buyer-specs/) through `npm run buyers -- import`,
 * as docs/buyer-specs.md tells ops to try them, on both stores: each file imports as it is (the
 * import makes the secret the files leave out), its spec and credentials are stored as written,
 * importing it again changes nothing, an export leaves the credentials out unless --with-secrets,
 * and in production the stub's loopback address needs OUTBOUND_ALLOW.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../server/cli/buyers";
import { pingSpecSchema, requestSpecSchema } from "../../server/delivery/spec";
import { loadSettings } from "../../server/settings/store";
import { commandStores, withCommandStore, type CommandStore } from "../support/databases";
import { projectRoot } from "../../tools/production-server";
import { ACME_POST, BOLT_POST, COBALT_PING, COBALT_POST, EXAMPLE_CREDENTIALS } from "../../tools/buyer-spec-examples";

const file = (name: string) => path.join(projectRoot, "deploy", "buyer-specs", name);
const FILES = [
  ["acme", file("acme-form-xml.json")],
  ["bolt", file("bolt-json.json")],
  ["cobalt", file("cobalt-pingpost.json")],
] as const;

describe.each(commandStores())("the example buyer files through npm run buyers -- import ($kind)", ({ make }) => {
  let location: CommandStore;
  const buyers = async (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    let output = "";
    const code = await run(argv, (text) => (output += text), { NODE_ENV: "production", CSRF_SECRET: "x".repeat(32), OUTBOUND_ALLOW: "127.0.0.1", ...location.env, ...env });
    return { code, output };
  };
  const settings = () => withCommandStore(location, (db) => loadSettings(db.builder));

  beforeAll(async () => {
    location = await make();
  });
  afterAll(async () => {
    await location.remove();
  });

  it("refuses them in production unless OUTBOUND_ALLOW names the stub's address, and imports nothing", async () => {
    await expect(buyers(["import", FILES[0][1]], { OUTBOUND_ALLOW: "" })).rejects.toThrow(/buyers\.0\.url: [\s\S]*Nothing was changed/);
    expect((await settings()).buyers).toEqual([]);
  });

  it.each(FILES)("imports %s with a secret made for it, its spec and credentials as written; again, nothing changes", async (id, path) => {
    const first = await buyers(["import", path]);
    expect(first.code).toBe(0);
    expect(first.output).toContain(`Created 1: buyer ${id}\n`);
    expect(first.output).toMatch(new RegExp(`\\n  ${id}: [A-Za-z0-9_-]{43}\\n`));
    const again = await buyers(["import", path]);
    expect(again.output).toContain("Nothing to change");
    const stored = (await settings()).buyers.find((buyer) => buyer.id === id)!;
    expect(stored.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stored.credentials).toEqual(EXAMPLE_CREDENTIALS[id]);
    const expected = {
      acme: { post: requestSpecSchema.parse(ACME_POST) },
      bolt: { post: requestSpecSchema.parse(BOLT_POST) },
      cobalt: { ping: pingSpecSchema.parse(COBALT_PING), post: requestSpecSchema.parse(COBALT_POST) },
    }[id];
    expect(stored.spec).toEqual(expected);
  });

  it("exports the three with their specs and without credentials, unless --with-secrets", async () => {
    const plain = await buyers(["export"]);
    const exported = JSON.parse(plain.output) as { buyers: Array<Record<string, unknown>> };
    expect(exported.buyers.map((buyer) => [buyer.id, buyer.credentials, buyer.secret])).toEqual([
      ["acme", undefined, undefined],
      ["bolt", undefined, undefined],
      ["cobalt", undefined, undefined],
    ]);
    for (const value of ["acme-test-key-123", "bolt-test-token-456", "cobalt-test-key-789"]) expect(plain.output).not.toContain(value);
    expect(exported.buyers.map((buyer) => Object.keys(buyer.spec as object).sort())).toEqual([["post"], ["post"], ["ping", "post"]]);
    const full = JSON.parse((await buyers(["export", "--with-secrets"])).output) as { buyers: Array<{ id: string; credentials?: unknown }> };
    expect(full.buyers.map((buyer) => [buyer.id, buyer.credentials])).toEqual([
      ["acme", EXAMPLE_CREDENTIALS.acme],
      ["bolt", EXAMPLE_CREDENTIALS.bolt],
      ["cobalt", EXAMPLE_CREDENTIALS.cobalt],
    ]);
  });
});
