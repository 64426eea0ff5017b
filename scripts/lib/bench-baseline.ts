/**
 * Starts scripts/static-baseline.ts in a child process and waits for the port it prints.
 * Same shape as startProductionServer(): origin, exited, stop().
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { onJsonLines, parseJson, projectRoot, stopChild } from "../../tools/production-server";

export const baselineScript = path.join(projectRoot, "scripts", "static-baseline.ts");

export interface RunningBaseline {
  origin: string;
  port: number;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export async function startStaticBaseline(directory: string, timeoutMs = 15_000): Promise<RunningBaseline> {
  // tsx only hooks module loading at start-up; once listening, this is plain Node running Express.
  const child = spawn(process.execPath, ["--import", "tsx", baselineScript, directory], {
    cwd: projectRoot,
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const stopOnExit = () => child.kill("SIGKILL");
  process.once("exit", stopOnExit);

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`static baseline did not start in ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    onJsonLines(child, (line) => {
      const entry = parseJson(line);
      if (entry?.event === "baseline_started" && typeof entry.port === "number" && entry.port > 0) {
        clearTimeout(timer);
        resolve(entry.port);
      }
    });
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`static baseline exited (${code ?? signal}) before listening: ${stderr}`));
    });
  });

  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    child,
    exited,
    async stop() {
      process.off("exit", stopOnExit);
      await stopChild(child, exited);
    },
  };
}
