/**
 * `npm run buyers -- import|export` (server/cli/buyers.ts) on both stores: the file becomes an
 * import (issue 33, item 7). Import is idempotent and all or nothing, keeps stored secrets when the
 * file has none, makes and prints one for a new buyer without; export never prints a secret unless
 * asked, and what it prints imports back unchanged. The same for a buyer's credentials (issue 43):
 * kept when the file leaves them out, exported only with --with-secrets, fingerprints in history;
 * and a spec with a bad field is refused on import, named by its path.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../server/cli/buyers";
import { UsageError } from "../../server/cli/common";
import { loadSettings, settingsHistory } from "../../server/settings/store";
import { commandStores, withCommandStore, type CommandStore } from "../support/databases";
import { projectRoot } from "../../tools/production-server";
import { ACME_POST, EXAMPLE_CREDENTIALS } from "../../tools/buyer-spec-examples";

const EXAMPLE = path.join(projectRoot, "deploy", "buyers.example.json");

describe.each(commandStores())("npm run buyers ($kind)", ({ make }) => {
  let location: CommandStore;
  let folder: string;
  const buyers = async (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    let output = "";
    // The example file's buyers are the stub on loopback: named, as production (the default NODE_ENV) refuses them otherwise.
    const code = await run(argv, (text) => (output += text), { OUTBOUND_ALLOW: "127.0.0.1", ...location.env, ...env });
    return { code, output };
  };
  const settings = () => withCommandStore(location, (db) => loadSettings(db.builder));

  beforeAll(async () => {
    location = await make();
    folder = await mkdtemp(path.join(tmpdir(), "buyers-cli-"));
  });
  afterAll(async () => {
    await location.remove();
    await rm(folder, { recursive: true, force: true });
  });

  it("imports the example file, and importing it again changes nothing", async () => {
    const first = await buyers(["import", EXAMPLE]);
    expect(first.code).toBe(0);
    expect(first.output).toMatch(/^Created 4: buyer summit, buyer harbor, source fb01, auction\n|^Created 3: buyer summit, buyer harbor, source fb01\n/);
    const again = await buyers(["import", EXAMPLE]);
    expect(again.output).toMatch(/^Unchanged \d: buyer summit, buyer harbor, source fb01/);
    expect(again.output).toContain("Nothing to change");
    const stored = await settings();
    expect(stored.buyers.map((buyer) => [buyer.id, buyer.status])).toEqual([["summit", "active"], ["harbor", "active"]]);
    expect(await withCommandStore(location, (db) => settingsHistory(db.builder, "buyer", "summit"))).toEqual([expect.objectContaining({ action: "import", actor: "cli" })]);
  });

  it("exports without secrets unless asked, and the export imports back with every secret kept", async () => {
    const plain = await buyers(["export"]);
    const exported = JSON.parse(plain.output) as { buyers: Array<Record<string, unknown>> };
    expect(exported.buyers.map((buyer) => buyer.secret)).toEqual([undefined, undefined]);
    expect(plain.output).not.toMatch(/secret/i);
    const example = JSON.parse(await readFile(EXAMPLE, "utf8")) as { buyers: Array<{ secret: string }> };
    const withSecrets = JSON.parse((await buyers(["export", "--with-secrets"])).output) as { buyers: Array<{ secret: string }> };
    expect(withSecrets.buyers.map((buyer) => buyer.secret)).toEqual(example.buyers.map((buyer) => buyer.secret));
    const file = path.join(folder, "exported.json");
    await writeFile(file, plain.output);
    expect((await buyers(["import", file])).output).toContain("Nothing to change");
    expect((await settings()).buyers.map((buyer) => buyer.secret)).toEqual(example.buyers.map((buyer) => buyer.secret));
  });

  it("updates what changed, keeps what the file leaves out, and makes a secret for a new buyer given none", async () => {
    const exported = JSON.parse((await buyers(["export"])).output) as { buyers: Array<Record<string, unknown>>; sources: unknown[] };
    const changed = {
      buyers: [{ ...exported.buyers[0], price: 21, caps: { day: 150, hour: 20 } }, { id: "nova", name: "Nova Auto Agency", url: "https://leads.nova.example/post", price: 9 }],
    };
    const file = path.join(folder, "changed.json");
    await writeFile(file, JSON.stringify(changed));
    const dry = await buyers(["import", file, "--dry-run"]);
    expect(dry.output).toContain("Created (would be) 1: buyer nova");
    expect(dry.output).toContain("Dry run: nothing was changed.");
    expect((await settings()).buyers.map((buyer) => buyer.id)).toEqual(["summit", "harbor"]);
    const done = await buyers(["import", file]);
    expect(done.output).toContain("Created 1: buyer nova\nUpdated 1: buyer summit\n");
    const secret = /nova: (\S+)/.exec(done.output)?.[1];
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await settings();
    expect(stored.buyers.map((buyer) => buyer.id)).toEqual(["summit", "harbor", "nova"]);
    expect(stored.buyers.find((buyer) => buyer.id === "nova")!.secret).toBe(secret);
    expect(stored.buyers.find((buyer) => buyer.id === "summit")).toMatchObject({ price: 21, caps: { day: 150, hour: 20 } });
    const history = await withCommandStore(location, (db) => settingsHistory(db.builder, "buyer", "summit"));
    expect(history[0]).toMatchObject({ action: "import", before: expect.objectContaining({ price: 18.5 }), after: expect.objectContaining({ price: 21 }) });
    // History never holds a secret, only its fingerprint.
    expect(JSON.stringify(history)).not.toContain(stored.buyers[0]!.secret);
    expect(history[0]!.after!.secret).toMatch(/^sha256:[0-9a-f]{12}$/);
  });

  it("refuses a bad file whole, naming each problem, and changes nothing", async () => {
    const file = path.join(folder, "bad.json");
    await writeFile(file, JSON.stringify({ buyers: [{ id: "summit", name: "Summit Auto Insurance Agency", url: "ftp://x", price: -1 }, { id: "new-one", name: "New One", url: "https://x.example", price: 1 }] }));
    const attempt = buyers(["import", file]);
    await expect(attempt).rejects.not.toThrow(UsageError);
    await expect(attempt).rejects.toThrow(/buyers\.0\.url: an http\(s\) URL[\s\S]*buyers\.0\.price[\s\S]*Nothing was changed/);
    expect((await settings()).buyers.map((buyer) => buyer.id)).toEqual(["summit", "harbor", "nova"]);
  });

  it("refuses a plain http:// buyer address in production", async () => {
    const file = path.join(folder, "plain.json");
    await writeFile(file, JSON.stringify({ buyers: [{ id: "plain", name: "Plain Agency", url: "http://leads.plain.example/post", price: 3 }] }));
    await expect(buyers(["import", file], { NODE_ENV: "production", CSRF_SECRET: "x".repeat(32) })).rejects.toThrow(/buyers\.0\.url: use an https:\/\/ address/);
  });

  it("refuses, in production, every address inside the network, for buyers and sources alike, and imports nothing of the file", async () => {
    const file = path.join(folder, "internal.json");
    const inside = ["https://169.254.169.254/latest/meta-data/", "http://127.0.0.1:5432/", "http://localhost:6379/", "http://[::1]:5432/", "http://2130706433:5432/", "https://10.0.0.5/leads", "https://192.168.1.1/", "https://metadata.google.internal/"];
    const entries = inside.map((url, index) => ({ id: `inside-${index}`, name: `Inside ${index}`, url, price: 3 }));
    await writeFile(file, JSON.stringify({
      buyers: [{ id: "fine", name: "Fine Agency", url: "https://leads.fine.example/post", price: 3 }, ...entries, { id: "pinger", name: "Pinger", mode: "pingpost", url: "https://leads.fine.example/post", pingUrl: "https://10.1.1.1/ping", webhookUrl: "https://[fd00:ec2::254]/", price: 3 }],
      sources: [{ sid: "fb01", payout: 2, postbackUrl: "http://169.254.169.254/pb?tid={tid}" }],
    }));
    const attempt = buyers(["import", file], { NODE_ENV: "production", CSRF_SECRET: "x".repeat(32), OUTBOUND_ALLOW: "" });
    const failure = await attempt.then(() => undefined, (error: Error) => error);
    expect(failure?.message).toMatch(/Nothing was changed/);
    for (const index of inside.keys()) expect(failure?.message).toContain(`buyers.${index + 1}.url: `);
    expect(failure?.message).toContain("buyers.9.pingUrl: 10.1.1.1 is a private address");
    expect(failure?.message).toContain("buyers.9.webhookUrl: fd00:ec2::254 is a private address (unique-local IPv6)");
    expect(failure?.message).toContain("sources.0.postbackUrl: use an https:// address");
    expect((await settings()).buyers.map((buyer) => buyer.id)).not.toContain("fine");
    // OUTBOUND_ALLOW names the exceptions.
    await writeFile(file, JSON.stringify({ buyers: [{ id: "stubbed", name: "Stubbed Agency", url: "http://buyer-stub:4100/leads/stubbed", price: 3 }] }));
    await buyers(["import", file], { NODE_ENV: "production", CSRF_SECRET: "x".repeat(32), OUTBOUND_ALLOW: "buyer-stub" });
    expect((await settings()).buyers.map((buyer) => buyer.id)).toContain("stubbed");
    const refused = await buyers(["import", file], { NODE_ENV: "production", CSRF_SECRET: "x".repeat(32), OUTBOUND_ALLOW: "" }).then(() => undefined, (error: Error) => error);
    expect(refused?.message).toMatch(/buyers\.0\.url: use an https:\/\/ address/);
    expect((await settings()).buyers.map((buyer) => buyer.id)).toContain("stubbed");
  });

  it("keeps a buyer's credentials like its secret: exported only with --with-secrets, kept by an import that leaves them out, fingerprints in history", async () => {
    const key = EXAMPLE_CREDENTIALS.acme.key;
    const acme = { id: "acme", name: "Acme Auto Agents", url: "http://127.0.0.1:4010/acme/leads", price: 12, spec: { post: ACME_POST }, credentials: { key } };
    const file = path.join(folder, "acme.json");
    await writeFile(file, JSON.stringify({ buyers: [acme] }));
    expect((await buyers(["import", file])).output).toContain("Created 1: buyer acme");
    expect((await settings()).buyers.find((buyer) => buyer.id === "acme")).toMatchObject({ spec: { post: { format: "form" } }, credentials: { key } });

    const plain = await buyers(["export"]);
    expect(plain.output).not.toContain(key);
    const exported = JSON.parse(plain.output) as { buyers: Array<Record<string, unknown>> };
    const entry = exported.buyers.find((buyer) => buyer.id === "acme")!;
    expect(entry.credentials).toBeUndefined();
    // The credential's name stays visible in the spec.
    expect(entry.spec).toMatchObject({ post: { auth: { type: "query", name: "key", credential: "key" } } });
    const withSecrets = JSON.parse((await buyers(["export", "--with-secrets"])).output) as { buyers: Array<Record<string, unknown>> };
    expect(withSecrets.buyers.find((buyer) => buyer.id === "acme")!.credentials).toEqual({ key });

    // The export without secrets imports back unchanged, the credential kept.
    // (Its entry alone: the previous test left a buyer on a host only production's allowance names.)
    const back = path.join(folder, "acme-exported.json");
    await writeFile(back, JSON.stringify({ buyers: [entry] }));
    expect((await buyers(["import", back])).output).toContain("Nothing to change");
    expect((await settings()).buyers.find((buyer) => buyer.id === "acme")!.credentials).toEqual({ key });

    // Giving the value replaces it; history holds fingerprints only.
    await writeFile(file, JSON.stringify({ buyers: [{ ...acme, credentials: { key: "acme-new-key-789" } }] }));
    expect((await buyers(["import", file])).output).toContain("Updated 1: buyer acme");
    expect((await settings()).buyers.find((buyer) => buyer.id === "acme")!.credentials).toEqual({ key: "acme-new-key-789" });
    const history = await withCommandStore(location, (db) => settingsHistory(db.builder, "buyer", "acme"));
    expect(JSON.stringify(history)).not.toContain(key);
    expect(JSON.stringify(history)).not.toContain("acme-new-key-789");
    expect(history[0]!.after!.credentials).toEqual({ key: expect.stringMatching(/^sha256:[0-9a-f]{12}$/) });
    expect(history[0]!.before!.credentials).toEqual({ key: expect.stringMatching(/^sha256:[0-9a-f]{12}$/) });
    expect(history[0]!.after!.credentials).not.toEqual(history[0]!.before!.credentials);
  });

  it("refuses a buyer whose spec names an unknown fact or lacks its credential, naming the path, and imports nothing", async () => {
    const file = path.join(folder, "bad-spec.json");
    const fields = ACME_POST.fields.map((field, index) => (index === 3 ? { ...field, from: "contact.fax" } : field));
    await writeFile(file, JSON.stringify({ buyers: [{ id: "badspec", name: "Bad Spec Agency", url: "http://127.0.0.1:4010/acme/leads", price: 1, spec: { post: { ...ACME_POST, fields } }, credentials: { key: "k" } }, { id: "nokey", name: "No Key Agency", url: "http://127.0.0.1:4010/acme/leads", price: 1, spec: { post: ACME_POST } }] }));
    const failure = await buyers(["import", file]).then(() => undefined, (error: Error) => error);
    expect(failure?.message).toMatch(/buyers\.0\.spec\.post\.fields\.3\.from: unknown fact/);
    expect(failure?.message).toMatch(/buyers\.1\.credentials\.key: the spec's authentication names the credential "key"/);
    expect(failure?.message).toContain("Nothing was changed");
    expect((await settings()).buyers.map((buyer) => buyer.id)).not.toContain("badspec");
  });

  it.each([
    [[], /^Usage/],
    [["import"], /Say which file/],
    [["import", "/nonexistent/buyers.json"], /Cannot read/],
    [["export", "--dry-run"], /--dry-run is for import/],
    [["import", EXAMPLE, "--with-secrets"], /--with-secrets is for export/],
    [["delete", "summit"], /Unknown command/],
  ])("refuses %j as a usage error", async (argv, message) => {
    if (argv.length === 0) {
      const { code, output } = await buyers([]);
      expect(code).toBe(2);
      expect(output).toMatch(message);
      return;
    }
    const attempt = buyers(argv);
    await expect(attempt).rejects.toThrow(UsageError);
    await expect(attempt).rejects.toThrow(message);
  });
});
