/**
 * The stack under test: docker-compose.yml under a compose project name of this run's own, on a
 * free loopback port and a backend subnet no other network uses; `up` until healthy; and the
 * removal of everything the run created (containers, networks, volumes, the images it built).
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import getPort from "get-port";
import { projectRoot } from "../../tools/production-server";
import {
  containersWithLabels,
  detectCompose,
  detectEngine,
  imageIds,
  isAppRequestLine,
  LogFollower,
  pumpHealthChecks,
  run,
  waitFor,
  waitHealthy,
  type ComposeCli,
  type Engine,
  type RunResult,
} from "./container-engine";
import type { HttpClient } from "./container-http";
import { print } from "./container-report";
import { prepareDelivery, type DeliverySetup } from "./container-delivery";

export const APP_SERVICES = ["app1", "app2"] as const;
export type AppService = (typeof APP_SERVICES)[number];
/** docker-compose.yml's stop_grace_period for the app: SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS + margin. */
export const APP_STOP_TIMEOUT_S = 25;

// docker-compose 1.x keeps only [a-z0-9] of a project name, so the name is made of nothing else.
export const project = `qrct${randomBytes(4).toString("hex")}`;
/** Put on everything this test creates outside compose, so cleanup finds it. */
export const testLabel = `org.quoteridge.container-test=${project}`;
export const composeLabel = `com.docker.compose.project=${project}`;
const composeFile = path.join(projectRoot, "docker-compose.yml");
export const keepImages = process.env.CONTAINER_TEST_KEEP_IMAGES === "1";

export interface Stack {
  engine: Engine;
  compose: ComposeCli;
  env: NodeJS.ProcessEnv;
  lbPort: number;
  /** app1's operations console on this machine's loopback. */
  adminPort: number;
  /** The balancer's metrics port (each replica's /metrics) on this machine's loopback. */
  metricsPort: number;
  backendPrefix: string;
  imagesBefore: Set<string>;
  /** The buyer stub's bundle, the buyers file and their compose variables (removed with the stack). */
  delivery: DeliverySetup;
}

export interface Running {
  app: Record<AppService, string>;
  db: string;
  lb: string;
  upAt: number;
}

function ipv4ToNumber(ip: string): number {
  return ip.split(".").reduce((value, octet) => value * 256 + Number(octet), 0);
}

function overlaps(a: string, b: string): boolean {
  const range = (cidr: string) => {
    const [ip = "", bits = "32"] = cidr.split("/");
    const size = 2 ** (32 - Number(bits));
    const start = Math.floor(ipv4ToNumber(ip) / size) * size;
    return [start, start + size - 1] as const;
  };
  const [a0, a1] = range(a);
  const [b0, b1] = range(b);
  return a0 <= b1 && b0 <= a1;
}

/** A /24 under 10.190.0.0/16 that no existing engine network uses (the compose file's default is 10.190.63). */
async function pickBackendPrefix(): Promise<string> {
  const ids = (await run("docker", ["network", "ls", "-q"])).stdout.split("\n").filter(Boolean);
  const used = ids.length
    ? (await run("docker", ["network", "inspect", "--format", "{{range .IPAM.Config}}{{.Subnet}} {{end}}", ...ids])).stdout.split(/\s+/).filter((cidr) => /^\d+\.\d+\.\d+\.\d+\/\d+$/.test(cidr))
    : [];
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const prefix = `10.190.${64 + Math.floor(Math.random() * 190)}`;
    if (!used.some((cidr) => overlaps(cidr, `${prefix}.0/24`))) return prefix;
  }
  throw new Error(`no free /24 in 10.190.0.0/16 (in use: ${used.join(", ")})`);
}

/**
 * Finds the engine and compose, notes the images already there, picks the port, subnet and
 * secrets, and prepares lead delivery (the buyer stub's bundle and the buyers file).
 */
export async function createStack(): Promise<Stack> {
  const [engine, compose] = await Promise.all([detectEngine(), detectCompose()]);
  const imagesBefore = await imageIds();
  const lbPort = await getPort({ host: "127.0.0.1" });
  const adminPort = await getPort({ host: "127.0.0.1" });
  const metricsPort = await getPort({ host: "127.0.0.1" });
  const backendPrefix = await pickBackendPrefix();
  const delivery = await prepareDelivery();
  const env = {
    ...process.env,
    // The replicas deliver to the buyer stub, which only this profile starts.
    ...delivery.env,
    LB_BIND_ADDRESS: "127.0.0.1",
    LB_PORT: String(lbPort),
    // app1's operations console, published on this machine's loopback.
    ADMIN_HOST_PORT: String(adminPort),
    // Each replica's metrics through the balancer's metrics port, on this machine's loopback.
    METRICS_HOST_PORT: String(metricsPort),
    BACKEND_NET_PREFIX: backendPrefix,
    // Fresh secrets prove the variables reach the services (and no default is relied on).
    CSRF_SECRET: randomBytes(32).toString("base64url"),
    POSTGRES_PASSWORD: randomBytes(16).toString("hex"),
  };
  return { engine, compose, imagesBefore, lbPort, adminPort, metricsPort, backendPrefix, env, delivery };
}

export function composeRun(stack: Stack, args: string[], options: { allowFailure?: boolean; timeoutMs?: number } = {}): Promise<RunResult> {
  return run(stack.compose.command, [...stack.compose.baseArgs, "-p", project, "-f", composeFile, ...args], { env: stack.env, cwd: projectRoot, ...options });
}

async function serviceContainer(service: string): Promise<string> {
  const [id] = await containersWithLabels([composeLabel, `com.docker.compose.service=${service}`]);
  if (!id) throw new Error(`no container for service ${service}`);
  return id;
}

/** `up -d`, then waits until the replicas and the database are healthy and the balancer answers. */
export async function up(stack: Stack, lb: HttpClient): Promise<Running> {
  const upAt = Date.now();
  // compose waits for the database's health check before it starts the app (depends_on).
  const stopPump = pumpHealthChecks(stack.engine, [composeLabel]);
  try {
    await composeRun(stack, ["up", "-d"], { timeoutMs: 300_000 });
  } finally {
    await stopPump();
  }
  const running: Running = {
    app: { app1: await serviceContainer("app1"), app2: await serviceContainer("app2") },
    db: await serviceContainer("db"),
    lb: await serviceContainer("lb"),
    upAt,
  };
  await waitHealthy(stack.engine, [running.app.app1, running.app.app2, running.db], 180_000);
  await waitFor("the balancer to answer /readyz with 200", 60_000, async () => ((await lb.request("/readyz", { anonymous: true })).status === 200 ? true : undefined));
  return running;
}

/** Follows an app replica's log: its request lines counted (and ours, by id prefix, kept), the rest kept. */
export function appFollower(id: string, sinceMs: number, trackedPrefix?: string): LogFollower {
  return new LogFollower(id, sinceMs, { isRequestLine: isAppRequestLine, ...(trackedPrefix ? { trackedPrefix } : {}) });
}

/** Removes everything this run created; returns what could not be removed. */
export async function removeStack(stack: Stack): Promise<string[]> {
  print(`\n▶ cleaning up project ${project}`);
  const rmi = keepImages ? [] : ["--rmi", "local"];
  const down = await composeRun(stack, ["down", "-v", "--remove-orphans", "-t", "10", ...rmi], { allowFailure: true, timeoutMs: 180_000 }).catch((error: Error) => ({ code: 1, stdout: "", stderr: error.message }));
  if (down.code !== 0) print(`  compose down failed (removing by label instead): ${down.stderr.trim().split("\n").slice(-3).join(" | ")}`);
  const forLabels = async (kind: "ps" | "volume" | "network", label: string) => {
    const args = kind === "ps" ? ["ps", "-aq", "--filter", `label=${label}`] : [kind, "ls", "-q", "--filter", `label=${label}`];
    return (await run("docker", args, { allowFailure: true })).stdout.split("\n").map((line) => line.trim()).filter(Boolean);
  };
  for (const label of [testLabel, composeLabel]) {
    const containers = await forLabels("ps", label);
    if (containers.length) await run("docker", ["rm", "-f", ...containers], { allowFailure: true });
  }
  for (const label of [testLabel, composeLabel]) {
    const volumes = await forLabels("volume", label);
    if (volumes.length) await run("docker", ["volume", "rm", "-f", ...volumes], { allowFailure: true });
    const networks = await forLabels("network", label);
    if (networks.length) await run("docker", ["network", "rm", ...networks], { allowFailure: true });
  }
  if (!keepImages) {
    // The images built here, including the build stages' intermediate images some engines
    // keep; removed children first, so a few passes.
    for (let pass = 0; pass < 4; pass += 1) {
      const created = [...(await imageIds())].filter((id) => !stack.imagesBefore.has(id));
      if (created.length === 0) break;
      await run("docker", ["rmi", ...created], { allowFailure: true });
    }
  }
  const leftovers: string[] = [];
  for (const label of [testLabel, composeLabel]) {
    for (const kind of ["ps", "volume", "network"] as const) leftovers.push(...(await forLabels(kind, label)).map((id) => `${kind === "ps" ? "container" : kind} ${id}`));
  }
  if (!keepImages) leftovers.push(...[...(await imageIds())].filter((id) => !stack.imagesBefore.has(id)).map((id) => `image ${id.slice(0, 12)}`));
  await stack.delivery.remove();
  print(leftovers.length ? `  left behind: ${leftovers.join(", ")}` : `✓ removed every container, network, volume${keepImages ? "" : " and image"} of the run`);
  return leftovers;
}
