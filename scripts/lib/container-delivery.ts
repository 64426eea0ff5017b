/**
 * Lead delivery in the container stack (issue 10): docker-compose.yml's `buyer-stub` service
 * (profile "delivery-test") plays a buyer, the replicas read a buyers file naming it, and leads
 * submitted through the balancer must reach it, each once and signed with the buyer's secret.
 *
 * The stub is `npm run buyer-stub` (scripts/buyer-stub.ts) bundled by vite into one file with
 * every dependency inlined, run by the plain Node base image from a read-only mount: nothing of it
 * goes into the app image. The buyers file sits in a directory of this run's own, mounted
 * read-only into the replicas and the stub (BUYERS_DIR).
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import getPort from "get-port";
import { projectRoot } from "../../tools/production-server";
import { verifySignature } from "../../server/delivery/signature";
import { run, waitFor, type LogFollower } from "./container-engine";
import { check, type HttpClient } from "./container-http";
import { figures, print } from "./container-report";
import { submitLeads } from "./container-stored-data";

/** The buyer the stub plays; its address is the stub's service name on the stack's network. */
export const STUB_BUYER_ID = "stub";
const STUB_BUYER_NAME = "Container Test Insurance Agency";
/** The compose profile that starts the stub (docker-compose.yml). */
export const STUB_PROFILE = "delivery-test";
/** Leads submitted through the balancer for the delivery check. */
export const DELIVERY_LEADS = 6;
/** The buyers file's path inside the replicas and the stub (BUYERS_DIR is mounted at /app/deploy/buyers). */
const BUYERS_FILE_IN_CONTAINERS = "/app/deploy/buyers/buyers.json";

export interface DeliverySetup {
  /** Variables for compose: the profile, BUYERS_DIR, BUYERS_FILE, BUYER_STUB_DIR, BUYER_STUB_PORT, OUTBOUND_ALLOW, CERTIFICATE_SECRET. */
  env: Record<string, string>;
  stubPort: number;
  secret: string;
  /** Removes the bundle and the buyers file. */
  remove(): Promise<void>;
}

/** Bundles scripts/buyer-stub.ts into `outDir`/buyer-stub.mjs (ES module, dependencies inlined, for Node 20+). */
async function bundleBuyerStub(outDir: string): Promise<void> {
  const { build } = await import("vite");
  await build({
    configFile: false,
    root: projectRoot,
    logLevel: "warn",
    ssr: { noExternal: true, target: "node" },
    build: {
      ssr: path.join(projectRoot, "scripts", "buyer-stub.ts"),
      outDir,
      emptyOutDir: true,
      target: "node20",
      minify: false,
      copyPublicDir: false,
      rolldownOptions: { output: { format: "es", entryFileNames: "buyer-stub.mjs" } },
    },
  });
}

/** Builds the stub, writes the buyers file and picks the stub's port; everything under the system's temporary directory. */
export async function prepareDelivery(): Promise<DeliverySetup> {
  const stubDir = await mkdtemp(path.join(os.tmpdir(), "qrct-buyer-stub-"));
  const buyersDir = await mkdtemp(path.join(os.tmpdir(), "qrct-buyers-"));
  const remove = async () => {
    await rm(stubDir, { recursive: true, force: true });
    await rm(buyersDir, { recursive: true, force: true });
  };
  try {
    await bundleBuyerStub(stubDir);
    const secret = randomBytes(32).toString("base64url");
    const buyersFile = {
      buyers: [{ id: STUB_BUYER_ID, name: STUB_BUYER_NAME, url: `http://buyer-stub:4100/leads/${STUB_BUYER_ID}`, secret, price: 15, timeoutMs: 5_000 }],
      sources: [],
    };
    await writeFile(path.join(buyersDir, "buyers.json"), `${JSON.stringify(buyersFile, null, 2)}\n`);
    // mkdtemp makes 0700 directories; the containers read them as uid 1000.
    await Promise.all([chmod(stubDir, 0o755), chmod(buyersDir, 0o755), chmod(path.join(stubDir, "buyer-stub.mjs"), 0o644), chmod(path.join(buyersDir, "buyers.json"), 0o644)]);
    const stubPort = await getPort({ host: "127.0.0.1" });
    return {
      env: {
        COMPOSE_PROFILES: STUB_PROFILE,
        BUYERS_DIR: buyersDir,
        BUYERS_FILE: BUYERS_FILE_IN_CONTAINERS,
        BUYER_STUB_DIR: stubDir,
        BUYER_STUB_PORT: String(stubPort),
        // The stub is a private host: production refuses it unless named (docs/security.md, "Outbound addresses").
        OUTBOUND_ALLOW: "buyer-stub",
        // A fresh one proves the variable reaches the replicas.
        CERTIFICATE_SECRET: randomBytes(32).toString("base64url"),
      },
      stubPort,
      secret,
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

interface ReceivedLead {
  buyerId: string;
  /** ISO time, as the stub's JSON gives it. */
  receivedAt: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  json: unknown;
  signature: string;
  idempotencyKey?: string;
  reference?: string;
  repeat: boolean;
  answer: number | string;
}

async function received(stubPort: number): Promise<ReceivedLead[]> {
  const response = await fetch(`http://127.0.0.1:${stubPort}/received?buyer=${STUB_BUYER_ID}`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`the stub's /received answered ${response.status}`);
  return ((await response.json()) as { leads: ReceivedLead[] }).leads;
}

/** The deliveries table's view of the leads: rows per status, counted in the database container. */
async function deliveryStatuses(dbContainer: string, references: string[]): Promise<Record<string, number>> {
  const { stdout } = await run(
    "docker",
    ["exec", "-i", dbContainer, "sh", "-c", 'psql -X -q -t -A -F "|" -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -v refs="$1" -f -', "sh", references.join(",")],
    { input: "SELECT status, count(*) FROM deliveries WHERE kind = 'buyer' AND lead_reference = ANY (string_to_array(:'refs', ',')) GROUP BY status;\n", timeoutMs: 30_000 },
  );
  return Object.fromEntries(
    stdout
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean)
      .map((line) => {
        const [status = "", count = "0"] = line.split("|");
        return [status, Number(count)];
      }),
  );
}

/**
 * Leads submitted through the balancer reach the buyer stub: each once, its signature valid with
 * the buyer's secret (checked here, and by the stub), its body naming the lead; the database
 * records each delivery as accepted.
 */
export async function checkDelivery(lb: HttpClient, setup: DeliverySetup, dbContainer: string, followers: Record<string, LogFollower>): Promise<void> {
  await waitFor("the buyer stub to answer", 60_000, async () => ((await received(setup.stubPort)) ? true : undefined));
  const references = await submitLeads(lb, DELIVERY_LEADS, { sid: "container", tid: "delivery" });
  const submittedAt = Date.now();
  print(`  ${references.length} leads submitted through the balancer: ${references.join(", ")}`);

  const wanted = new Set(references);
  const leads = await waitFor(
    `the buyer stub to receive the ${references.length} leads`,
    90_000,
    async () => {
      const all = await received(setup.stubPort);
      const mine = all.filter((lead) => lead.reference !== undefined && wanted.has(lead.reference));
      return new Set(mine.map((lead) => lead.reference)).size === wanted.size ? mine : undefined;
    },
    async () => `received so far: ${JSON.stringify((await received(setup.stubPort).catch(() => [])).map((lead) => [lead.reference, lead.answer, lead.signature]))}`,
  );
  // The stub's own receipt times: the last lead's, after the last 201 (0 when all came sooner).
  const lastReceived = Math.max(...leads.map((lead) => Date.parse(lead.receivedAt)));
  const deliveredMs = Math.max(0, lastReceived - submittedAt);

  for (const reference of references) {
    const requests = leads.filter((lead) => lead.reference === reference);
    check(requests.length === 1, `${reference}: the stub received ${requests.length} requests`);
    const [lead] = requests as [ReceivedLead];
    const header = lead.headers["x-signature"];
    const own = verifySignature(setup.secret, typeof header === "string" ? header : undefined, lead.rawBody);
    check(own === "ok", `${reference}: the signature does not verify with the buyer's secret (${own})`);
    check(lead.signature === "ok", `${reference}: the stub's verdict on the signature is ${lead.signature}`);
    check(lead.answer === 200, `${reference}: the stub answered ${lead.answer}`);
    check(typeof lead.idempotencyKey === "string" && lead.idempotencyKey.includes(reference), `${reference}: Idempotency-Key ${lead.idempotencyKey}`);
    check(!lead.repeat, `${reference}: a repeated Idempotency-Key`);
    const body = lead.json as { reference?: unknown } | undefined;
    check(body?.reference === reference, `${reference}: the body names ${String(body?.reference)}`);
  }
  print(`  ok    each lead reached the buyer stub once, signed (X-Signature verified with the buyer's secret), the last ${deliveredMs} ms after the last 201`);

  // The stub answered 200 at once; the replica records the acceptance right after: wait for it.
  const statuses = await waitFor("the deliveries to be recorded as accepted", 30_000, async () => {
    const counts = await deliveryStatuses(dbContainer, references);
    return counts.accepted === references.length ? counts : undefined;
  }, async () => JSON.stringify(await deliveryStatuses(dbContainer, references)));
  check(Object.keys(statuses).length === 1, `deliveries by status: ${JSON.stringify(statuses)}`);
  print(`  ok    the deliveries table has all ${references.length} as accepted`);

  // Which replica sent them (its lead_delivered log lines): either may, as each claims from the shared outbox.
  const byReplica = Object.entries(followers).map(([service, follower]) => {
    const sent = follower.entries.filter((entry) => entry.event === "lead_delivered" && typeof entry.reference === "string" && wanted.has(entry.reference)).length;
    return `${service} ${sent}`;
  });
  print(`  delivered by (lead_delivered log lines): ${byReplica.join(", ")}`);
  figures.push(["leads delivered to the buyer stub", `${references.length} of ${references.length}, signed, once each, the last ${deliveredMs} ms after the last 201 (${byReplica.join(", ")})`]);
}
