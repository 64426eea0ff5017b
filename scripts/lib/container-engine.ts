/**
 * The container test's hands on the engine: the `docker` and compose command-line clients,
 * whatever engine DOCKER_HOST points them at (Docker, or podman's Docker-compatible socket).
 * Everything goes through the ordinary clients, so the test proves what a person running the
 * documented commands would see.
 */
import { spawn, type ChildProcess } from "node:child_process";
import split2 from "split2";
import { parseJson } from "../../tools/production-server";

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to the command's stdin. */
  input?: string;
  timeoutMs?: number;
  /** Resolve with the result instead of rejecting when the command exits non-zero. */
  allowFailure?: boolean;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Every child still running, so a signal handler can stop them before cleaning up. */
const running = new Set<ChildProcess>();

export function killRunningCommands(): void {
  for (const child of running) child.kill("SIGTERM");
}

function tail(text: string, lines = 40): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/** Runs a command to completion and returns its output; rejects with the output's tail on failure. */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const withInput = options.input !== undefined;
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: [withInput ? "pipe" : "ignore", "pipe", "pipe"] });
    running.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = options.timeoutMs
      ? setTimeout(() => {
          stderr += `\n[killed after ${options.timeoutMs} ms]`;
          child.kill("SIGKILL");
        }, options.timeoutMs)
      : undefined;
    if (child.stdin) {
      // A command that exits without reading its input must not crash the test with EPIPE.
      child.stdin.on("error", () => {});
      child.stdin.end(options.input);
    }
    child.once("error", (error) => {
      running.delete(child);
      clearTimeout(timer);
      reject(new Error(`${command} could not be started: ${error.message}`));
    });
    child.once("close", (code, signal) => {
      running.delete(child);
      clearTimeout(timer);
      const result = { code: code ?? (signal ? 128 : 1), stdout, stderr };
      if (result.code === 0 || options.allowFailure) resolve(result);
      else reject(new Error(`\`${command} ${args.join(" ")}\` exited with ${result.code}:\n${tail(stderr || stdout)}`));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a value other than undefined, or fails with `describe()`. */
export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, describe?: () => Promise<string>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${describe ? `\n${await describe().catch((error: unknown) => String(error))}` : ""}`);
    await sleep(500);
  }
}

export interface Engine {
  /** "Docker Engine 28.2.2", "Podman Engine 4.3.1", … */
  description: string;
  /**
   * podman's socket schedules no health checks without systemd: a container stays "starting"
   * until something runs its check. Then the test runs them itself with `podman healthcheck run`
   * (on a real Docker engine this is false and the engine's own schedule is used).
   */
  runsHealthChecksItself: boolean;
}

export async function detectEngine(): Promise<Engine> {
  const result = await run("docker", ["version", "--format", "{{range .Server.Components}}{{.Name}} {{.Version}};{{end}}"], { allowFailure: true, timeoutMs: 30_000 }).catch(
    (error: Error) => ({ code: 127, stdout: "", stderr: error.message }),
  );
  if (result.code !== 0) {
    throw new Error(
      `No container engine answers the \`docker\` client (DOCKER_HOST=${process.env.DOCKER_HOST ?? "unset"}):\n${tail(result.stderr, 5)}\n` +
        "Start Docker, or on a machine without it run ../shared/containers/prepare-engine.sh and export the variables it prints.",
    );
  }
  const components = result.stdout.trim().split(";").filter(Boolean);
  const description = components[0] ?? "unknown engine";
  const podman = /podman/i.test(result.stdout);
  if (podman) {
    const cli = await run("podman", ["--version"], { allowFailure: true }).catch(() => ({ code: 127 }));
    if (cli.code !== 0) throw new Error("The engine is podman, whose health checks this test must run itself, but the `podman` command is missing.");
  }
  return { description, runsHealthChecksItself: podman };
}

export interface ComposeCli {
  command: string;
  baseArgs: string[];
  version: string;
  /** docker-compose 1.x: older flags and naming. */
  legacy: boolean;
}

/** `docker compose` (v2 plugin) when present, else the standalone `docker-compose`. */
export async function detectCompose(): Promise<ComposeCli> {
  const plugin = await run("docker", ["compose", "version", "--short"], { allowFailure: true });
  if (plugin.code === 0) return { command: "docker", baseArgs: ["compose"], version: plugin.stdout.trim(), legacy: false };
  const standalone = await run("docker-compose", ["version", "--short"], { allowFailure: true }).catch(() => ({ code: 127, stdout: "" }));
  if (standalone.code === 0) {
    const version = standalone.stdout.trim().replace(/^v/, "");
    return { command: "docker-compose", baseArgs: [], version, legacy: version.startsWith("1.") };
  }
  throw new Error("Neither `docker compose` nor `docker-compose` is installed.");
}

export interface ContainerState {
  id: string;
  name: string;
  status: string;
  exitCode: number;
  /** "starting" | "healthy" | "unhealthy", or "" without a health check. */
  health: string;
  image: string;
}

export async function inspectContainer(id: string): Promise<ContainerState> {
  const format = "{{.Id}}|{{.Name}}|{{.State.Status}}|{{.State.ExitCode}}|{{if .State.Health}}{{.State.Health.Status}}{{end}}|{{.Image}}";
  const { stdout } = await run("docker", ["inspect", "--format", format, id]);
  const [fullId = id, name = "", status = "", exitCode = "", health = "", image = ""] = stdout.trim().split("|");
  return { id: fullId, name: name.replace(/^\//, ""), status, exitCode: Number(exitCode), health, image };
}

/** Ids of the containers carrying every one of the labels (running or not). */
export async function containersWithLabels(labels: string[]): Promise<string[]> {
  const { stdout } = await run("docker", ["ps", "-aq", "--no-trunc", ...labels.flatMap((label) => ["--filter", `label=${label}`])]);
  return stdout.split("\n").map((line) => line.trim()).filter(Boolean);
}

/** Every image id in the engine's store (without "sha256:"), intermediate ones included. */
export async function imageIds(): Promise<Set<string>> {
  const { stdout } = await run("docker", ["images", "-aq", "--no-trunc"]);
  return new Set(stdout.split("\n").map((id) => id.trim().replace(/^sha256:/, "")).filter(Boolean));
}

/** An image's size in bytes, or undefined when the engine does not have it. */
export async function imageSize(image: string): Promise<number | undefined> {
  const result = await run("docker", ["image", "inspect", "--format", "{{.Size}}", image], { allowFailure: true });
  return result.code === 0 ? Number(result.stdout.trim()) : undefined;
}

/** Runs each container's health check once where the engine does not (see Engine). */
export async function runHealthChecks(engine: Engine, ids: string[]): Promise<void> {
  if (!engine.runsHealthChecksItself) return;
  await Promise.all(ids.map((id) => run("podman", ["healthcheck", "run", id], { allowFailure: true, timeoutMs: 30_000 })));
}

/** Waits until every container is running and, where it has a health check, healthy. */
export async function waitHealthy(engine: Engine, ids: string[], timeoutMs: number): Promise<void> {
  await waitFor(
    `${ids.length} container(s) to be healthy`,
    timeoutMs,
    async () => {
      const states = await Promise.all(ids.map(inspectContainer));
      const pending = states.filter((state) => state.status !== "running" || (state.health !== "" && state.health !== "healthy"));
      if (pending.length === 0) return true;
      if (pending.some((state) => state.status === "exited")) throw new Error("exited");
      await runHealthChecks(engine, pending.filter((state) => state.status === "running").map((state) => state.id));
      return undefined;
    },
    async () => {
      const states = await Promise.all(ids.map(inspectContainer));
      const logs = await Promise.all(states.map(async (state) => `--- ${state.name}: ${state.status} ${state.health}\n${tail((await run("docker", ["logs", "--tail", "15", state.id], { allowFailure: true })).stdout, 15)}`));
      return logs.join("\n");
    },
  );
}

/**
 * While compose waits for `condition: service_healthy`, keep running the checks it waits on
 * (only needed where the engine does not). Returns the function that stops it.
 */
export function pumpHealthChecks(engine: Engine, labels: string[]): () => Promise<void> {
  if (!engine.runsHealthChecksItself) return async () => {};
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const ids = await containersWithLabels(labels).catch(() => []);
      const states = await Promise.all(ids.map((id) => inspectContainer(id).catch(() => undefined)));
      await runHealthChecks(
        engine,
        states.filter((state) => state && state.status === "running" && (state.health === "starting" || state.health === "unhealthy")).map((state) => state!.id),
      );
      await sleep(1_000);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

/** The line as an entry when it is JSON written at `sinceMs` or later (by its own `time` field). */
function jsonLineSince(line: string, sinceMs: number): LogEntry | undefined {
  const entry = parseJson(line);
  const at = Date.parse(String(entry?.time ?? ""));
  return entry && Number.isFinite(at) && at >= sinceMs ? { ...entry, at } : undefined;
}

function jsonLinesSince(text: string, sinceMs: number): LogEntry[] {
  return text.split("\n").flatMap((line): LogEntry[] => {
    const entry = jsonLineSince(line, sinceMs);
    return entry ? [entry] : [];
  });
}

/**
 * A stopped container's whole log from `sinceMs` on. Following a container that is exiting can
 * miss its last lines on some engines; once it has exited, its log is complete.
 */
export async function readLog(containerId: string, sinceMs: number): Promise<LogEntry[]> {
  const { stdout, stderr } = await run("docker", ["logs", "--since", new Date(sinceMs - 1_000).toISOString(), containerId], { timeoutMs: 60_000 });
  return [...jsonLinesSince(stdout, sinceMs), ...jsonLinesSince(stderr, sinceMs)].sort((a, b) => a.at - b.at);
}

export interface LogEntry extends Record<string, unknown> {
  /** Milliseconds since the epoch, from the line's own `time` field. */
  at: number;
}

/**
 * Follows one container's log from `sinceMs` on (`docker logs -f`, which ends by itself when the
 * container stops). Lines are JSON (the app's pino lines, nginx's json log_format); request lines
 * are only counted, other lines are kept, so a long load run costs no memory.
 */
export class LogFollower {
  readonly entries: LogEntry[] = [];
  requestLines = 0;
  /** Request ids seen, of requests whose id starts with `trackedPrefix`. */
  readonly trackedIds = new Set<string>();
  private readonly child: ChildProcess;
  readonly ended: Promise<void>;

  constructor(
    readonly containerId: string,
    readonly sinceMs: number,
    private readonly options: { trackedPrefix?: string; isRequestLine: (entry: Record<string, unknown>) => boolean; onRequest?: (entry: Record<string, unknown>) => void },
  ) {
    // A second early: --since has whole-second precision on some engines; the line's own
    // time decides below.
    const since = new Date(sinceMs - 1_000).toISOString();
    this.child = spawn("docker", ["logs", "--follow", "--since", since, containerId], { stdio: ["ignore", "pipe", "pipe"] });
    running.add(this.child);
    const read = (stream: NodeJS.ReadableStream) => stream.pipe(split2()).on("data", (line: string) => this.take(line));
    read(this.child.stdout!);
    read(this.child.stderr!);
    this.ended = new Promise((resolve) =>
      this.child.once("close", () => {
        running.delete(this.child);
        resolve();
      }),
    );
  }

  private take(line: string): void {
    const entry = jsonLineSince(line, this.sinceMs);
    if (!entry) return;
    if (this.options.isRequestLine(entry)) {
      this.requestLines += 1;
      const id = entry.requestId;
      if (this.options.trackedPrefix && typeof id === "string" && id.startsWith(this.options.trackedPrefix)) this.trackedIds.add(id);
      this.options.onRequest?.(entry);
      return;
    }
    this.entries.push(entry);
  }

  hasEvent(event: string): boolean {
    return this.entries.some((entry) => entry.event === event);
  }

  stop(): void {
    this.child.kill("SIGTERM");
  }
}

/** The app's access-log line (server/logger.ts, createHttpLogger). */
export const isAppRequestLine = (entry: Record<string, unknown>) =>
  entry.msg === "request completed" || entry.msg === "request errored" || entry.msg === "request aborted";
/** nginx's json access-log line (deploy/nginx/nginx.conf). */
export const isNginxRequestLine = (entry: Record<string, unknown>) => typeof entry.status === "number" && "upstream" in entry;
