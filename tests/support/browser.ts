/**
 * Finds a Chromium for Playwright: CHROMIUM_PATH, then the system's (Debian's `chromium`),
 * then Playwright's own download. Says exactly what is missing when there is none.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright";

const SYSTEM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome-stable", "/usr/bin/google-chrome"];

/** Flags for a closed network and a root user (see the developers' guide). */
export const CHROMIUM_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

export function findChromium(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (existsSync(fromEnv)) return fromEnv;
    throw new Error(`CHROMIUM_PATH is set to ${fromEnv}, but no file is there.`);
  }
  const system = SYSTEM_CANDIDATES.find((candidate) => existsSync(candidate));
  if (system) return system;
  const bundled = chromium.executablePath();
  if (bundled && existsSync(bundled)) return bundled;
  throw new Error(
    "No Chromium found for the browser tests. Install one of: Debian's package (`apt-get install -y chromium`), " +
      "Playwright's browser (`npx playwright install chromium`), or point CHROMIUM_PATH at a Chromium binary. " +
      `Looked in: ${[...SYSTEM_CANDIDATES, bundled].join(", ")}`,
  );
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true });
}
