/**
 * `npm run test:container`: builds the production image and the docker-compose stack for real,
 * and proves through the load balancer that the site works, that a rolling restart of the
 * replicas under load loses no request, and that data survives `down` and `up` (issue 5;
 * docs/deployment.md). Then it checks the image itself: not root, read-only root filesystem.
 *
 * It uses the `docker` and compose clients with whatever DOCKER_HOST, NODE_IMAGE, NGINX_IMAGE and
 * POSTGRES_IMAGE the environment gives, under a compose project name of its own, on a free
 * loopback port and a backend subnet no other network uses. Everything it creates (containers,
 * networks, volumes, the images it built) is removed at the end, also when a step fails or the
 * run is interrupted. CONTAINER_TEST_KEEP_IMAGES=1 keeps the images (a faster next build).
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { projectRoot } from "./lib/production-server";
import { runLoad, type LoadOptions, type LoadResult, type LoadRun } from "./lib/bench-autocannon";
import {
  containersWithLabels,
  detectCompose,
  detectEngine,
  inspectContainer,
  isAppRequestLine,
  isNginxRequestLine,
  killRunningCommands,
  LogFollower,
  pumpHealthChecks,
  readLog,
  run,
  sleep,
  waitFor,
  waitHealthy,
  type ComposeCli,
  type Engine,
  type RunResult,
} from "./lib/container-engine";
import { check, CheckFailure, HttpClient, routeChecks, runChecks, submitPrivacyRequest } from "./lib/container-http";
import { countQuery, storedDataChecks, type StoredRecord } from "./lib/container-stored-data";

const APP_SERVICES = ["app1", "app2"] as const;
type AppService = (typeof APP_SERVICES)[number];
/** docker-compose.yml's stop_grace_period for the app: SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS + margin. */
const APP_STOP_TIMEOUT_S = 25;
const LOAD_CONNECTIONS = 20;
const MB = 1_000_000;

// docker-compose 1.x keeps only [a-z0-9] of a project name, so the name is made of nothing else.
const project = `qrct${randomBytes(4).toString("hex")}`;
/** Put on everything this test creates outside compose, so cleanup finds it. */
const testLabel = `org.quoteridge.container-test=${project}`;
const composeLabel = `com.docker.compose.project=${project}`;
const composeFile = path.join(projectRoot, "docker-compose.yml");
const keepImages = process.env.CONTAINER_TEST_KEEP_IMAGES === "1";

const figures: Array<[string, string]> = [];
const failures: string[] = [];
const print = (line: string) => process.stdout.write(`${line}\n`);

// ---------------------------------------------------------------------------------------------
// Small helpers

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
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

function dockerfileDefaultNodeImage(): string {
  const match = /^ARG NODE_IMAGE=(\S+)/m.exec(readFileSync(path.join(projectRoot, "Dockerfile"), "utf8"));
  return match?.[1] ?? "unknown";
}

async function imageIds(): Promise<Set<string>> {
  const { stdout } = await run("docker", ["images", "-aq", "--no-trunc"]);
  return new Set(stdout.split("\n").map((id) => id.trim().replace(/^sha256:/, "")).filter(Boolean));
}

async function imageSize(image: string): Promise<number | undefined> {
  const result = await run("docker", ["image", "inspect", "--format", "{{.Size}}", image], { allowFailure: true });
  return result.code === 0 ? Number(result.stdout.trim()) : undefined;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const megabytes = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

async function step<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  print(`\n▶ ${name}`);
  const result = await work();
  print(`✓ ${name} (${seconds(Date.now() - started)})`);
  return result;
}

// ---------------------------------------------------------------------------------------------
// The stack

interface Stack {
  engine: Engine;
  compose: ComposeCli;
  env: NodeJS.ProcessEnv;
  lbPort: number;
  backendPrefix: string;
  imagesBefore: Set<string>;
}

function composeRun(stack: Stack, args: string[], options: { allowFailure?: boolean; timeoutMs?: number } = {}): Promise<RunResult> {
  return run(stack.compose.command, [...stack.compose.baseArgs, "-p", project, "-f", composeFile, ...args], { env: stack.env, cwd: projectRoot, ...options });
}

async function serviceContainer(service: string): Promise<string> {
  const [id] = await containersWithLabels([composeLabel, `com.docker.compose.service=${service}`]);
  if (!id) throw new Error(`no container for service ${service}`);
  return id;
}

interface Running {
  app: Record<AppService, string>;
  db: string;
  lb: string;
  upAt: number;
}

/** `up -d`, then waits until the replicas and the database are healthy and the balancer answers. */
async function up(stack: Stack, lb: HttpClient): Promise<Running> {
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

async function countStored(dbContainer: string, record: StoredRecord): Promise<number> {
  // The database's own POSTGRES_USER and POSTGRES_DB, over its Unix socket; the value is a psql variable.
  const { stdout } = await run(
    "docker",
    ["exec", "-i", dbContainer, "sh", "-c", 'psql -X -q -t -A -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -v value="$1" -f -', "sh", record.value],
    { input: countQuery(record), timeoutMs: 30_000 },
  );
  return Number(stdout.trim());
}

function appFollower(id: string, sinceMs: number, trackedPrefix?: string): LogFollower {
  return new LogFollower(id, sinceMs, { isRequestLine: isAppRequestLine, ...(trackedPrefix ? { trackedPrefix } : {}) });
}

// ---------------------------------------------------------------------------------------------
// The rolling restart

interface RestartOutcome {
  stopMs: number;
  exitCode: number;
  drainedRequests: number;
  backServingMs: number;
}

async function restartReplica(stack: Stack, service: AppService, id: string): Promise<RestartOutcome> {
  const stopAt = Date.now();
  await run("docker", ["stop", "-t", String(APP_STOP_TIMEOUT_S), id], { timeoutMs: (APP_STOP_TIMEOUT_S + 30) * 1000 });
  const stopMs = Date.now() - stopAt;
  const state = await inspectContainer(id);
  const draining = await readLog(id, stopAt);
  const events = new Set(draining.map((entry) => entry.event));
  check(state.exitCode === 0, `${service} exited with ${state.exitCode}`);
  check(events.has("shutdown_started"), `${service} logged no shutdown_started`);
  check(events.has("shutdown_complete"), `${service} logged no shutdown_complete`);
  check(!events.has("shutdown_forced"), `${service} had to force its shutdown`);

  const startAt = Date.now();
  await run("docker", ["start", id]);
  // Followed only once it runs: following a stopped container ends at once.
  const back = appFollower(id, startAt);
  try {
    await waitHealthy(stack.engine, [id], 120_000);
    // Healthy is not enough: the next replica may only stop once nginx sends this one traffic again.
    await waitFor(`nginx to send ${service} requests again`, 60_000, async () => (back.requestLines > 0 ? true : undefined));
  } finally {
    back.stop();
  }
  return { stopMs, exitCode: state.exitCode, drainedRequests: draining.filter(isAppRequestLine).length, backServingMs: Date.now() - startAt };
}

let activeLoad: LoadRun | undefined;

async function rollingRestart(stack: Stack, running: Running): Promise<void> {
  const origin = `http://127.0.0.1:${stack.lbPort}`;
  const upstreamOf: Record<string, AppService> = { [`${stack.backendPrefix}.11:3000`]: "app1", [`${stack.backendPrefix}.12:3000`]: "app2" };
  const perReplica: Record<AppService, number> = { app1: 0, app2: 0 };
  let retried = 0;
  let balancer5xx = 0;
  const loadStart = Date.now();
  const lbLog = new LogFollower(running.lb, loadStart, {
    isRequestLine: isNginxRequestLine,
    onRequest(entry) {
      const upstreams = String(entry.upstream).split(",").map((value) => value.trim());
      if (upstreams.length > 1) retried += 1;
      const last = upstreamOf[upstreams.at(-1) ?? ""];
      if (last) perReplica[last] += 1;
      if (typeof entry.status === "number" && entry.status >= 500) balancer5xx += 1;
    },
  });
  // nginx closes a visitor's keep-alive connection after 1,000 requests (keepalive_requests) with
  // "Connection: close"; browsers honour it, autocannon does not: it writes its next request
  // into the closing connection and counts the reset as an error. So autocannon opens a new
  // connection itself before that limit (its reconnectRate option, which runLoad passes on).
  const loadOptions: LoadOptions & { reconnectRate: number } = { url: `${origin}/zipcode`, connections: LOAD_CONNECTIONS, duration: 900, timeout: 10, reconnectRate: 500 };
  const load = runLoad(loadOptions);
  activeLoad = load;
  const outcomes: Partial<Record<AppService, RestartOutcome>> = {};
  let result: LoadResult;
  try {
    await sleep(3_000);
    for (const service of APP_SERVICES) {
      const outcome = await restartReplica(stack, service, running.app[service]);
      outcomes[service] = outcome;
      print(
        `  ${service}: stopped in ${seconds(outcome.stopMs)} (exit ${outcome.exitCode}, shutdown_complete, ${outcome.drainedRequests} requests answered while draining); ` +
          `started and serving through the balancer again after ${seconds(outcome.backServingMs)}`,
      );
    }
    await sleep(3_000);
  } finally {
    load.stop();
    result = await load;
    activeLoad = undefined;
    await sleep(500); // nginx's last lines
    lbLog.stop();
  }
  const badStatuses = Object.entries(result.statusCodeStats).filter(([code]) => Number(code) < 200 || Number(code) >= 400);
  const badCount = badStatuses.reduce((sum, [, { count }]) => sum + count, 0);
  const loadSeconds = (Date.now() - loadStart) / 1000;
  figures.push(
    ["requests during the rolling restart", `${result.requests.total} in ${loadSeconds.toFixed(1)} s (${Math.round(result.requests.total / loadSeconds)}/s, ${LOAD_CONNECTIONS} connections)`],
    ["  failed (errors, timeouts, non-2xx/3xx)", `${result.errors} errors, ${result.timeouts} timeouts, ${badCount} bad statuses${badCount ? ` ${JSON.stringify(Object.fromEntries(badStatuses))}` : ""}`],
    ["  latency p50 / p99 / max", `${result.latency.p50} / ${result.latency.p99} / ${result.latency.max} ms`],
    ["  answered by app1 / app2 (nginx log)", `${perReplica.app1} / ${perReplica.app2}`],
    ["  retried by nginx on the other replica", String(retried)],
    ...APP_SERVICES.map((service): [string, string] => {
      const outcome = outcomes[service];
      return [`  ${service} stop → exit / back serving`, outcome ? `${seconds(outcome.stopMs)} → ${outcome.exitCode} / ${seconds(outcome.backServingMs)}` : "did not finish"];
    }),
  );
  check(result.errors === 0 && result.timeouts === 0, `${result.errors} request errors and ${result.timeouts} timeouts under load`);
  check(badCount === 0, `${badCount} responses with a failing status: ${JSON.stringify(Object.fromEntries(badStatuses))}`);
  check(balancer5xx === 0, `nginx logged ${balancer5xx} responses with status 5xx`);
  check(result.requests.total > 0, "no requests completed");
}

// ---------------------------------------------------------------------------------------------
// The image alone

async function imageChecks(stack: Stack, image: string): Promise<void> {
  const user = (await run("docker", ["image", "inspect", "--format", "{{.Config.User}}", image])).stdout.trim();
  const uid = (await run("docker", ["run", "--rm", "--label", testLabel, "--entrypoint", "id", image, "-u"])).stdout.trim();
  print(`  runs as user ${user || "(unset)"}: uid ${uid}`);
  check(uid !== "" && uid !== "0", `the image runs as uid ${uid}`);

  // Read-only root filesystem, the data directory a volume, no DATABASE_URL: the embedded store.
  const volume = `${project}-readonly-data`;
  const name = `${project}-readonly`;
  const port = await freePort();
  await run("docker", ["volume", "create", "--label", testLabel, volume]);
  await run("docker", [
    "run", "-d", "--name", name, "--label", testLabel, "--read-only",
    "-v", `${volume}:/app/data`, "-p", `127.0.0.1:${port}:3000`,
    "-e", `CSRF_SECRET=${randomBytes(24).toString("hex")}`, image,
  ]);
  const id = (await inspectContainer(name)).id;
  const direct = new HttpClient(`http://127.0.0.1:${port}`, `${project}-ro-`);
  await waitHealthy(stack.engine, [id], 120_000);
  const health = await direct.request("/healthz");
  check(health.status === 200, `/healthz answered ${health.status}`);
  const { status, body } = await submitPrivacyRequest(direct);
  check(status === 201, `privacy request answered ${status}: ${JSON.stringify(body)}`);
  const write = await run("docker", ["exec", name, "node", "-e", "require('node:fs').writeFileSync('/app/probe', 'x')"], { allowFailure: true });
  check(write.code !== 0 && /EROFS|read-only/i.test(write.stderr), `writing to /app was not refused as read-only: ${write.stderr.trim() || "it succeeded"}`);
  const logs = (await run("docker", ["logs", name])).stdout;
  check(/"event":"database_ready","store":"embedded"/.test(logs), "no database_ready line for the embedded store");
  await run("docker", ["stop", "-t", "10", name]);
  const state = await inspectContainer(name);
  check(state.exitCode === 0, `the read-only container exited with ${state.exitCode}`);
  print(`  --read-only with ${volume} at /app/data: /healthz 200, privacy request stored in the embedded store (${String(body.reference)}), writes elsewhere refused, exit 0`);
}

// ---------------------------------------------------------------------------------------------
// Cleanup

let cleanupStarted: Promise<string[]> | undefined;

/** Removes everything this run created; returns what could not be removed. Runs once. */
function cleanup(stack: Stack | undefined): Promise<string[]> {
  cleanupStarted ??= (async () => {
    activeLoad?.stop();
    if (!stack) return [];
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
    print(leftovers.length ? `  left behind: ${leftovers.join(", ")}` : `✓ removed every container, network, volume${keepImages ? "" : " and image"} of the run`);
    return leftovers;
  })();
  return cleanupStarted;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const startedAt = Date.now();
  let stack: Stack | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    print(`\n${signal}: stopping and cleaning up`);
    killRunningCommands();
    void cleanup(stack).finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  // A bug in this script must not leave the stack running either.
  const onCrash = (error: unknown) => {
    print(`\nunexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    killRunningCommands();
    void cleanup(stack).finally(() => process.exit(1));
  };
  process.once("uncaughtException", onCrash);
  process.once("unhandledRejection", onCrash);

  try {
    const [engine, compose] = await Promise.all([detectEngine(), detectCompose()]);
    stack = {
      engine,
      compose,
      imagesBefore: await imageIds(),
      lbPort: await freePort(),
      backendPrefix: await pickBackendPrefix(),
      env: {},
    };
    stack.env = {
      ...process.env,
      LB_BIND_ADDRESS: "127.0.0.1",
      LB_PORT: String(stack.lbPort),
      BACKEND_NET_PREFIX: stack.backendPrefix,
      // Fresh secrets prove the variables reach the services (and no default is relied on).
      CSRF_SECRET: randomBytes(32).toString("base64url"),
      POSTGRES_PASSWORD: randomBytes(16).toString("hex"),
    };
    const nodeImage = process.env.NODE_IMAGE || dockerfileDefaultNodeImage();
    print(`container test: project ${project}, ${engine.description}, ${compose.command} ${compose.baseArgs.join(" ")} ${compose.version}`.replace(/\s+/g, " "));
    print(
      `  images: NODE_IMAGE=${nodeImage} NGINX_IMAGE=${process.env.NGINX_IMAGE || "(compose default)"} POSTGRES_IMAGE=${process.env.POSTGRES_IMAGE || "(compose default)"}; ` +
        `balancer on 127.0.0.1:${stack.lbPort}, backend ${stack.backendPrefix}.0/24` +
        (engine.runsHealthChecksItself ? "; the engine schedules no health checks, so this test runs them" : ""),
    );
    const s = stack;
    const lb = new HttpClient(`http://127.0.0.1:${s.lbPort}`, `${project}-`);

    const buildMs = await step("build the image (compose build)", async () => {
      const started = Date.now();
      // 1.x leaves a failed build's intermediate container behind unless told otherwise.
      await composeRun(s, ["build", ...(s.compose.legacy ? ["--force-rm"] : [])], { timeoutMs: 1_200_000 });
      return Date.now() - started;
    });
    figures.push(["build", seconds(buildMs)]);

    let running = await step("start the stack (compose up) and wait until it is healthy", () => up(s, lb));
    const followers = Object.fromEntries(APP_SERVICES.map((service) => [service, appFollower(running.app[service], running.upAt, lb.idPrefix)])) as Record<AppService, LogFollower>;

    const image = (await inspectContainer(running.app.app1)).image;
    const [size, baseSize] = await Promise.all([imageSize(image), imageSize(nodeImage)]);
    figures.unshift(
      ["image size", size === undefined ? "unknown" : megabytes(size)],
      [`base ${nodeImage}`, baseSize === undefined ? "not in the local image store" : megabytes(baseSize)],
      ["added by the app (image − base)", size !== undefined && baseSize !== undefined ? megabytes(size - baseSize) : "unknown"],
    );

    await step("every route through the balancer", async () => {
      const failed = await runChecks(routeChecks(lb), print);
      if (failed.length) throw new CheckFailure(`${failed.length} route check(s) failed`);
    });

    const stored = await step("stored data through the balancer is in PostgreSQL", async () => {
      const records: StoredRecord[] = [];
      for (const storedCheck of storedDataChecks) {
        const record = await storedCheck.submit(lb);
        const count = await countStored(running.db, record);
        check(count === 1, `${record.description}: ${count} rows in ${record.table}`);
        print(`  ok    ${storedCheck.name}: ${record.description} is in ${record.table}`);
        records.push(record);
      }
      return records;
    });

    await step("both replicas served traffic; a form from one is accepted by the other", async () => {
      // Log lines reach `docker logs` a little later than the responses: wait until the count settles.
      let last = -1;
      await waitFor("the replicas' logs to settle", 15_000, async () => {
        const seen = APP_SERVICES.reduce((sum, service) => sum + followers[service].trackedIds.size, 0);
        const settled = seen === last && APP_SERVICES.every((service) => followers[service].trackedIds.size > 0);
        last = seen;
        await sleep(1_000);
        return settled ? true : undefined;
      }).catch(() => undefined);
      const served = APP_SERVICES.map((service) => `${service} ${followers[service].trackedIds.size}`).join(", ");
      print(`  requests of this test answered: ${served} (of ${lb.sentIds.length} sent)`);
      check(APP_SERVICES.every((service) => followers[service].trackedIds.size > 0), `not both replicas served: ${served}`);
      const replicaOf = (requestId: string) => APP_SERVICES.find((service) => followers[service].trackedIds.has(requestId));
      // The CSRF token comes from one request and is checked by another; on different replicas
      // that only works with the shared CSRF_SECRET. Which replica nginx picks depends on its
      // workers' round-robin turns, so each attempt puts one more request in between.
      for (let attempt = 1; ; attempt += 1) {
        const betweenRequests = async () => {
          for (let filler = 1; filler < attempt; filler += 1) await lb.request("/robots.txt");
        };
        const { status, submission } = await submitPrivacyRequest(lb, { betweenRequests });
        check(status === 201, `privacy request answered ${status}`);
        const [issuer, checker] = await waitFor("the replicas to log both requests of the submission", 15_000, async () => {
          const pair = [replicaOf(submission.sessionRequestId), replicaOf(submission.submitRequestId)] as const;
          return pair[0] && pair[1] ? pair : undefined;
        });
        if (issuer && checker && issuer !== checker) {
          print(`  a CSRF token issued by ${issuer} was accepted by ${checker}`);
          break;
        }
        if (attempt === 6) throw new CheckFailure("six privacy requests, and never were the token and the submission on different replicas");
      }
    });

    await step(`rolling restart under load (${LOAD_CONNECTIONS} connections through the balancer)`, () => rollingRestart(s, running));

    await step("compose down (volumes kept) and up: the stored data is still there", async () => {
      await composeRun(s, ["down", "-t", String(APP_STOP_TIMEOUT_S)], { timeoutMs: 180_000 });
      const volumes = (await run("docker", ["volume", "ls", "-q", "--filter", `label=${composeLabel}`])).stdout.trim();
      check(volumes !== "", "the database volume is gone after down");
      running = await up(s, lb);
      for (const record of stored) {
        const count = await countStored(running.db, record);
        check(count === 1, `after down and up, ${record.description}: ${count} rows`);
        print(`  ok    ${record.description} is still in ${record.table}`);
      }
      const page = await lb.request("/zipcode");
      check(page.status === 200, `/zipcode answered ${page.status} after up`);
    });

    await step("the image: not root, read-only root filesystem", () => imageChecks(s, image));
  } catch (error) {
    // A failed check or command says what failed; only a bug in this script (a TypeError, …) needs its stack.
    const expected = error instanceof CheckFailure || (error instanceof Error && error.constructor === Error);
    failures.push(error instanceof Error ? (expected ? error.message : (error.stack ?? error.message)) : String(error));
    print(`✗ ${failures.at(-1)}`);
  } finally {
    const leftovers = await cleanup(stack);
    if (leftovers.length) failures.push(`left behind: ${leftovers.join(", ")}`);
  }
  figures.push(["test duration", seconds(Date.now() - startedAt)]);
  print("\nfigures");
  const width = Math.max(...figures.map(([name]) => name.length));
  for (const [name, value] of figures) print(`  ${name.padEnd(width)}  ${value}`);
  print(failures.length ? `\ncontainer test FAILED:\n${failures.map((failure) => `  - ${failure}`).join("\n")}` : "\ncontainer test passed");
  return failures.length ? 1 : 0;
}

// Exit explicitly: kept-alive sockets to containers that are gone must not hold the process.
process.exit(await main());
