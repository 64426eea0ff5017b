/**
 * Finds a Chromium: CHROMIUM_PATH, then the system's (Debian's `chromium`), then Playwright's own
 * download, and says exactly what is missing when there is none. Used by the browser tests
 * (tests/support/browser.ts) and `npm run lighthouse` (scripts/lib/lighthouse-chromium.ts).
 */
import { existsSync } from "node:fs";
import { chromium } from "playwright";

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

/** CHROMIUM_PATH, then the system's Chromium, then Playwright's download; `purpose` names who needs it in the error. */
export function findChromium(purpose = "the browser tests"): string {
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
    `No Chromium found for ${purpose}. Install one of: Debian's package (\`apt-get install -y chromium\`), ` +
      "Playwright's browser (`npx playwright install chromium`), or point CHROMIUM_PATH at a Chromium binary. " +
      `Looked in: ${[...SYSTEM_CANDIDATES, bundled].join(", ")}`,
  );
}

