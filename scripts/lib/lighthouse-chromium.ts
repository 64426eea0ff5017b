/**
 * A Chromium for Lighthouse to drive over the DevTools protocol: the same binary and flags the
 * browser tests use (tests/support/browser.ts), started by us with --remote-debugging-port=0 so
 * the OS picks the port and no browser download (chrome-launcher's, Puppeteer's) is involved.
 * The binary and flags come from tools/chromium.ts, as the browser tests' do.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { CHROMIUM_ARGS, findChromium as findBrowser } from "../../tools/chromium";

const START_TIMEOUT_MS = 30_000;

export function findChromium(): string {
  return findBrowser("Lighthouse");
}

export interface DebuggableChromium {
  /** The DevTools port Lighthouse connects to. */
  port: number;
  stop(): Promise<void>;
}

/** Starts a Chromium with a fresh profile and resolves once its DevTools endpoint is listening. */
export async function launchDebuggableChromium(executable: string): Promise<DebuggableChromium> {
  const profile = mkdtempSync(path.join(os.tmpdir(), "lighthouse-chromium-"));
  const child = spawn(executable, [...CHROMIUM_ARGS, "--remote-debugging-port=0", `--user-data-dir=${profile}`, "about:blank"], {
    stdio: ["ignore", "ignore", "pipe"],
    // Its own process group, so stopping it stops its helper processes too (they write to the profile).
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const signalGroup = (signal: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, signal);
        } catch {
          child.kill(signal);
        }
      };
      signalGroup("SIGTERM");
      const killer = setTimeout(() => signalGroup("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    }
    // Chromium's helper processes can still be writing to the profile for a moment after it exits.
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  };
  let stderr = "";
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Chromium (${executable}) did not open its DevTools port in ${START_TIMEOUT_MS} ms: ${stderr}`)), START_TIMEOUT_MS);
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(new Error(`Chromium (${executable}) could not start: ${error.message}`));
      });
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`Chromium (${executable}) exited before opening its DevTools port: ${stderr}`));
      });
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        const listening = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(stderr);
        if (listening) {
          clearTimeout(timer);
          resolve(Number(listening[1]));
        }
      });
    });
    return { port, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
