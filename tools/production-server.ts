/**
 * Starts the built production server (dist/server/index.js) as a child process on 127.0.0.1
 * with a port the OS picks, and reads the port from its `server_started` log line. Used by the
 * process and browser tests and the benchmark; the process is killed when the caller stops it or
 * exits.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import split2 from "split2";

export const projectRoot = fileURLToPath(new URL("..", import.meta.url));
export const serverEntry = path.join(projectRoot, "dist", "server", "index.js");
/**
 * The flags `npm start` runs the server with (package.json, and the Dockerfile's CMD): V8 collects
 * the old generation once it has grown by a quarter since the last collection, instead of letting
 * it double or more, so the memory of 100,000 ad clicks stays near the live set (issue 12, decision
 * 020); and its young generation's semi-spaces are capped at 8 MB instead of 16, which took another
 * ~20 MB off the peak (decision 022).
 */
export const SERVER_NODE_FLAGS: string[] = ["--heap-growing-percent=25", "--max-semi-space-size=8"];
/**
 * And its environment: one glibc malloc arena. A worker thread (the ZIP table's, at start-up) left
 * a 64 MB arena with about 55 MB resident behind it; Node's JavaScript runs on one thread, so
 * the arenas per thread bought nothing (decision 020).
 */
export const SERVER_ENV: Record<string, string> = { MALLOC_ARENA_MAX: "1" };

export interface RunningServer {
  origin: string;
  port: number;
  child: ChildProcess;
  /** The LOG_LEVEL the process was started with (the environment it was really given). */
  logLevel: string;
  /** Every stdout line so far, parsed when it is JSON. */
  logs: Array<Record<string, unknown>>;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export interface StartOptions {
  /**
   * "all": parse and keep every log line (tests). "problems": keep only warn/error/fatal lines,
   * so a benchmark at LOG_LEVEL=info does not spend its own CPU parsing the access log.
   */
  keepLogs?: "all" | "problems";
  timeoutMs?: number;
}

const PROBLEM_LEVEL = /"level":"(warn|error|fatal)"/;

/** Calls `onLine` with each line the child writes to stdout. */
export function onJsonLines(child: ChildProcess, onLine: (line: string) => void): void {
  child.stdout!.pipe(split2()).on("data", onLine);
}

/** The line as a JSON object, or undefined when it is not one. */
export function parseJson(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** SIGTERM, then SIGKILL if the child is still there after 5 s; resolves once it has exited. */
export async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(killer);
}

export async function startProductionServer(env: Record<string, string> = {}, { keepLogs = "all", timeoutMs = 45_000 }: StartOptions = {}): Promise<RunningServer> {
  if (!existsSync(serverEntry)) throw new Error(`${serverEntry} is missing: run \`npm run build\` first`);
  // Each server gets its own embedded store unless the caller names one (or a DATABASE_URL).
  const ownDataDir = env.DATA_DIR ? undefined : mkdtempSync(path.join(os.tmpdir(), "quote-site-data-"));
  // The console listens on a port of its own too: a random one, so servers started together never collide.
  // OUTBOUND_ALLOW: the tests' and benches' buyer and source stubs listen on loopback, which production refuses unless named.
  const childEnv = { ...process.env, ...SERVER_ENV, NODE_ENV: "production", HOST: "127.0.0.1", PORT: "0", ADMIN_HOST: "127.0.0.1", ADMIN_PORT: "0", LOG_LEVEL: "info", OUTBOUND_ALLOW: "127.0.0.1", ...(ownDataDir ? { DATA_DIR: ownDataDir } : {}), ...env };
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, serverEntry], { cwd: projectRoot, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
      resolve({ code, signal });
    }),
  );
  const stopOnExit = () => child.kill("SIGKILL");
  process.once("exit", stopOnExit);

  let listening = false;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running (with its database and background processes) after the test gives up on it.
      process.off("exit", stopOnExit);
      child.kill("SIGKILL");
      reject(new Error(`server did not start in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    onJsonLines(child, (line) => {
      if (listening && keepLogs === "problems" && !PROBLEM_LEVEL.test(line)) return;
      const entry = parseJson(line);
      if (!entry) return;
      logs.push(entry);
      if (entry.event === "server_started" && typeof entry.port === "number") {
        listening = true;
        clearTimeout(timer);
        resolve(entry.port);
      }
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening: ${stderr}`));
    });
  });

  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    child,
    logLevel: childEnv.LOG_LEVEL,
    logs,
    exited,
    async stop() {
      process.off("exit", stopOnExit);
      await stopChild(child, exited);
    },
  };
}
