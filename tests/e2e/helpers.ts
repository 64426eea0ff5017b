/**
 * Shared pieces of the browser tests: one production server and one Chromium per test file,
 * a console/CSP collector, and small page helpers. Not a test file itself (no `.test.ts`).
 */
import { afterAll, beforeAll, expect } from "vitest";
import type { Browser, BrowserContext, BrowserContextOptions, ConsoleMessage, Page } from "playwright";
import { launchChromium } from "../support/browser";
import { startProductionServer, type RunningServer } from "../../tools/production-server";
import { freshPostgresUrl, type FreshPostgres } from "../support/databases";
import { openDatabase, type Database } from "../../server/db/database";

export interface Harness {
  server: RunningServer;
  browser: Browser;
  /** Absolute URL on the test server. */
  url(path: string): string;
  /** A fresh, isolated browser context; closed by `close()` if the test did not close it. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Starts the built server and Chromium in parallel (call from beforeAll). */
export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const [server, browser] = await Promise.all([startProductionServer(env), launchChromium()]);
  const contexts = new Set<BrowserContext>();
  return {
    server,
    browser,
    url: (path) => new URL(path, server.origin).href,
    async newContext(options) {
      const context = await browser.newContext(options);
      // Fail a stuck wait with Playwright's own message, well before vitest's 30 s test timeout.
      context.setDefaultTimeout(10_000);
      contexts.add(context);
      context.once("close", () => contexts.delete(context));
      return context;
    },
    async close() {
      await Promise.allSettled([...contexts].map((context) => context.close()));
      await Promise.allSettled([browser.close(), server.stop()]);
    },
  };
}

/**
 * Waits until React has hydrated `selector` (React tags the DOM nodes it owns with
 * `__reactFiber$…`/`__reactProps$…` keys). Events sent after this reach React's handlers.
 */
export async function waitForHydration(page: Page, selector = "#root > *"): Promise<void> {
  await page.waitForFunction((css) => {
    const element = document.querySelector(css);
    return element !== null && Object.keys(element).some((key) => key.startsWith("__reactProps$"));
  }, selector);
}

/** Sets a flag on `window`; it survives client-side navigation and is lost on a full page load. */
export async function setWindowMarker(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __e2eMarker?: string }).__e2eMarker = "still-here";
  });
}

export async function hasWindowMarker(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { __e2eMarker?: string }).__e2eMarker === "still-here");
}

export interface CollectedMessage {
  type: string;
  text: string;
  /** The URL the message is attributed to (the script, or the document for load failures). */
  url: string;
}

export interface ProblemCollector {
  /** Console errors and warnings, from every frame. */
  consoleProblems: CollectedMessage[];
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
  /** Console lines that mention the Content Security Policy. */
  cspConsole: string[];
  /** `securitypolicyviolation` events recorded by the init script, from every frame. */
  cspViolations(page: Page): Promise<string[]>;
}

const CSP_RECORDER = "__e2eCspViolations";

/**
 * Records everything that signals a broken page: console errors and warnings, uncaught
 * exceptions, and CSP violations (both the DOM event, via an init script in every frame, and
 * Chromium's console report). Call before the first navigation.
 */
export async function collectProblems(context: BrowserContext, page: Page): Promise<ProblemCollector> {
  await context.addInitScript((key: string) => {
    const record: string[] = [];
    (window as unknown as Record<string, string[]>)[key] = record;
    document.addEventListener("securitypolicyviolation", (event) => {
      record.push(`${event.effectiveDirective} blocked ${event.blockedURI || "inline"} in ${event.documentURI}`);
    });
  }, CSP_RECORDER);
  const collector: ProblemCollector = {
    consoleProblems: [],
    pageErrors: [],
    cspConsole: [],
    async cspViolations(target) {
      const perFrame = await Promise.all(
        target.frames().map((frame) =>
          frame
            .evaluate((key: string) => (window as unknown as Record<string, string[] | undefined>)[key] ?? [], CSP_RECORDER)
            .catch(() => [] as string[]),
        ),
      );
      return perFrame.flat();
    },
  };
  page.on("console", (message: ConsoleMessage) => {
    const text = message.text();
    if (/content security policy/i.test(text)) collector.cspConsole.push(text);
    const type = message.type();
    if (type === "error" || type === "warning" || type === "assert") {
      collector.consoleProblems.push({ type, text, url: message.location().url });
    }
  });
  page.on("pageerror", (error) => collector.pageErrors.push(`${error.name}: ${error.message}`));
  return collector;
}

/**
 * Chromium prints this for any frame sandboxed with both allow-scripts and allow-same-origin.
 * The quote page's frame is specified with exactly that sandbox (same-origin form that needs
 * scripts and forms), so the warning is expected there and nowhere else.
 */
export const SANDBOX_ESCAPE_WARNING = "An iframe which has both allow-scripts and allow-same-origin for its sandbox attribute can escape its sandboxing.";

/** Whether the element's box is entirely inside the visible viewport (the visitor can read it). */
export async function isFullyInViewport(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((css) => {
    const element = document.querySelector(css);
    if (!element) return false;
    const box = element.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight && box.left >= 0 && box.right <= window.innerWidth;
  }, selector);
}

/** Fails on anything collectProblems recorded, except console messages `allowed` accepts. */
export async function expectNoProblems(page: Page, problems: ProblemCollector, allowed: (message: CollectedMessage) => boolean = () => false): Promise<void> {
  expect(problems.pageErrors, "uncaught exceptions").toEqual([]);
  expect(problems.consoleProblems.filter((message) => !allowed(message)), "console errors and warnings").toEqual([]);
  expect(problems.cspConsole, "CSP reports in the console").toEqual([]);
  expect(await problems.cspViolations(page), "securitypolicyviolation events").toEqual([]);
}

/** The one console note the quote page's frame is expected to cause (see SANDBOX_ESCAPE_WARNING). */
export const isSandboxNote = (message: CollectedMessage): boolean =>
  message.type === "warning" && message.text === SANDBOX_ESCAPE_WARNING && new URL(message.url).pathname === "/rapidfire.html";

/** The production server on a PostgreSQL of its own, and a connection to read what it stored. */
export interface StoredSite {
  harness: Harness;
  db: Database;
}

/**
 * Starts the production server on a fresh PostgreSQL before the file's tests (with `env` added,
 * e.g. a short LEAD_MIN_FILL_MS: a browser fills the form faster than a person), and stops both
 * after them. The returned object is filled in by then.
 */
export function siteOnFreshPostgres(env: Record<string, string> = {}): StoredSite {
  const site = {} as StoredSite;
  let postgres: FreshPostgres | undefined;
  beforeAll(async () => {
    postgres = await freshPostgresUrl();
    site.harness = await startHarness({ DATABASE_URL: postgres.url, ...env });
    site.db = await openDatabase({ DATABASE_URL: postgres.url, DATA_DIR: "unused" });
  }, 90_000);
  afterAll(async () => {
    await site.db?.close();
    await site.harness?.close();
    await postgres?.drop();
  });
  return site;
}
