/**
 * The server's child processes (decision 033 and issue 35): the embedded store's database process
 * and the background worker. Each is forked with an IPC channel, says `{ ready: … }` once it
 * serves (or `{ failed: message }`), is started again when it dies (backing off from 0.5 s to
 * 10 s; a run of a minute resets the back-off), and ends when the channel closes: `stop()` closes
 * it and waits, and a server that is killed closes it by dying. Lines a child writes to stderr
 * are logged as its problems. A child whose stdout the server reads can also be handed the server's
 * own stdout (passStdout), to write its log there itself once the server is gone.
 */
import { fork, type ChildProcess } from "node:child_process";
import { getPriority, setPriority } from "node:os";
import { createInterface } from "node:readline";
import type { Logger } from "../logger";

/** Names the child's fd that is the server's own stdout (ChildSpec.passStdout); unset when it has none. */
export const SERVER_STDOUT_FD_ENV = "QUOTE_SITE_SERVER_STDOUT_FD";
/** The server's stdout is the child's fd 4: after stdin, stdout, stderr and the IPC channel (fd 3). */
const SERVER_STDOUT_CHILD_FD = 4;

export interface ChildSpec {
  /** The log events' prefix: `<name>_started`, `<name>_exited`, … */
  name: string;
  script: string;
  env: NodeJS.ProcessEnv;
  /** Node's flags for the child (the source runs under tsx: `--import tsx` is added for a .ts script). */
  execArgv?: string[];
  /** Each line the child writes to stdout; unset: stdout is inherited. */
  onStdoutLine?: (line: string) => void;
  /**
   * Also give the child this process's own stdout (its fd 4, named in SERVER_STDOUT_FD_ENV). Its
   * stdout pipe has no reader once this process is killed; the log stream it relayed to (a
   * container's, the journal's) usually outlives it, and the child can write there itself.
   */
  passStdout?: boolean;
  /** Messages other than ready/failed/created. */
  onMessage?: (message: Record<string, unknown>, child: ChildProcess) => void;
  /**
   * How much lower than this process's its priority is, as `nice -n` counts (0-19), set once it is
   * forked: its niceness is this process's plus this, at most 19, so a server that runs niced
   * itself (shared CI, a batch host) still keeps the same lead over its child.
   */
  niceness?: number;
  startTimeoutMs?: number;
  stopTimeoutMs?: number;
}

export type ReadyMessage = { ready: unknown } | { created: true };

const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 10_000;
const HEALTHY_RUN_MS = 60_000;

/** Forks the child; `ready` resolves with its ready (or created) message, rejects when it fails or exits first. */
export function spawnChild(spec: ChildSpec, logger: Logger): { child: ChildProcess; ready: Promise<ReadyMessage> } {
  const child = fork(spec.script, [], {
    env: spec.passStdout ? { ...spec.env, [SERVER_STDOUT_FD_ENV]: String(SERVER_STDOUT_CHILD_FD) } : spec.env,
    execArgv: [...(spec.script.endsWith(".ts") ? ["--import", "tsx"] : []), ...(spec.execArgv ?? [])],
    // fd 1 itself: reading process.stdout would make a stream of it (and change its mode) for nothing.
    stdio: ["ignore", spec.onStdoutLine ? "pipe" : "inherit", "pipe", "ipc", ...(spec.passStdout ? [1] : [])],
    serialization: "json",
  });
  if (spec.niceness !== undefined && child.pid !== undefined) {
    try {
      setPriority(child.pid, Math.min(19, getPriority() + spec.niceness));
    } catch (error) {
      logger.warn({ event: `${spec.name}_priority_not_set`, err: error }, "could not lower the child process's priority");
    }
  }
  if (spec.onStdoutLine && child.stdout) createInterface({ input: child.stdout }).on("line", spec.onStdoutLine);
  let stderrTail = "";
  if (child.stderr) {
    createInterface({ input: child.stderr }).on("line", (line) => {
      if (!line) return;
      try {
        const { event, ...detail } = JSON.parse(line) as { event?: string };
        logger.warn({ event: event ?? `${spec.name}_stderr`, pid: child.pid, ...detail }, `${spec.name} process`);
      } catch {
        stderrTail = `${stderrTail}${line}\n`.slice(-2_000);
        logger.warn({ event: `${spec.name}_stderr`, pid: child.pid, text: line.slice(0, 500) }, `${spec.name} process`);
      }
    });
  }
  const startTimeoutMs = spec.startTimeoutMs ?? 60_000;
  let created = false;
  const ready = new Promise<ReadyMessage>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The ${spec.name} process did not start within ${startTimeoutMs / 1000} s.`)), startTimeoutMs);
    child.on("message", (message: Record<string, unknown>) => {
      if ("ready" in message) {
        clearTimeout(timer);
        resolve({ ready: message.ready });
      } else if (message.created === true) {
        // It made something once and exits; the next process serves it.
        clearTimeout(timer);
        created = true;
      } else if (typeof message.failed === "string") {
        clearTimeout(timer);
        reject(new Error(message.failed));
      } else spec.onMessage?.(message, child);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (created) resolve({ created: true });
      else reject(new Error(`The ${spec.name} process exited (${signal ?? `code ${code}`}) before it was ready.${stderrTail ? ` ${stderrTail.trim()}` : ""}`));
    });
  });
  return { child, ready };
}

export interface Supervised {
  /** The process running now (a new one after a restart). */
  current(): ChildProcess;
  /** Closes its channel (its signal to finish and exit) and waits; SIGKILL after stopTimeoutMs. */
  stop(): Promise<void>;
}

/**
 * Watches a started child and starts it again when it dies. `first` is the child already ready;
 * `start` forks a new one and resolves once it is ready.
 */
export function supervise(spec: ChildSpec, logger: Logger, first: ChildProcess, start: () => { child: ChildProcess; ready: Promise<unknown> }): Supervised {
  let current = first;
  let stopping = false;
  let restartDelay = RESTART_MIN_MS;
  let restartTimer: NodeJS.Timeout | undefined;

  const watch = (child: ChildProcess, startedAt: number) => {
    child.once("exit", (code, signal) => {
      if (stopping || child !== current) return;
      if (Date.now() - startedAt > HEALTHY_RUN_MS) restartDelay = RESTART_MIN_MS;
      logger.error({ event: `${spec.name}_exited`, pid: child.pid, code, signal, restartInMs: restartDelay }, `the ${spec.name} process exited; starting it again`);
      restartTimer = setTimeout(() => {
        restartTimer = undefined;
        if (stopping) return;
        const next = start();
        current = next.child;
        watch(next.child, Date.now());
        next.ready.then(
          () => logger.info({ event: `${spec.name}_started`, pid: next.child.pid, restarted: true }, `${spec.name} process started again`),
          (error: unknown) => logger.error({ event: `${spec.name}_start_failed`, err: error }, `the ${spec.name} process could not start`),
        );
      }, restartDelay);
      restartDelay = Math.min(restartDelay * 2, RESTART_MAX_MS);
    });
  };
  watch(first, Date.now());

  return {
    current: () => current,
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const child = current;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill("SIGKILL"), spec.stopTimeoutMs ?? 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
