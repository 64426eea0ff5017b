/**
 * One Lighthouse run with its defaults (mobile emulation, simulated 4G/slow-CPU throttling), as
 * PageSpeed Insights runs it, against a fresh Chromium; reduced to the figures the targets name.
 */
import lighthouse from "lighthouse";
import { launchDebuggableChromium } from "./lighthouse-chromium";

export const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
export type Category = (typeof CATEGORIES)[number];

export interface RunFigures {
  url: string;
  /** Milliseconds, as Lighthouse reports them (simulated for the throttled phone). */
  lcpMs: number;
  fcpMs: number;
  tbtMs: number;
  speedIndexMs: number;
  cls: number;
  /**
   * What the unthrottled browser really saw, before simulation. Lighthouse's simulated LCP counts
   * every request that finished before the observed LCP, so on a busy machine (a late observed
   * paint) the hydration bundle lands inside the LCP estimate; these show when that happened.
   */
  observedFcpMs: number | undefined;
  observedLcpMs: number | undefined;
  /** 0–100 per category. */
  scores: Record<Category, number>;
  /** The audits that cost points, per category: id and score, worst first (what to fix next). */
  failedAudits: Array<{ category: Category; id: string; title: string; score: number }>;
  /** What Lighthouse took as the LCP element (a CSS selector and snippet), when it says. */
  lcpElement: string | undefined;
}

function numeric(lhr: LighthouseResult, audit: string): number {
  const value = lhr.audits[audit]?.numericValue;
  if (typeof value !== "number") throw new Error(`Lighthouse reported no value for ${audit}${lhr.runtimeError ? `: ${lhr.runtimeError.message}` : ""}`);
  return value;
}

type LighthouseResult = NonNullable<Awaited<ReturnType<typeof lighthouse>>>["lhr"];

/** A figure from the "metrics" audit's debug data (observed, unthrottled timings). */
function observed(lhr: LighthouseResult, key: string): number | undefined {
  const details = lhr.audits.metrics?.details;
  const items = details && "items" in details && Array.isArray(details.items) ? details.items : [];
  const value: unknown = (items[0] as Record<string, unknown> | undefined)?.[key];
  return typeof value === "number" ? value : undefined;
}

/** The LCP element as "selector: snippet", from the LCP breakdown insight (Lighthouse 13's home for it; a node in its details list). */
function lcpElementOf(lhr: LighthouseResult): string | undefined {
  const details = lhr.audits["lcp-breakdown-insight"]?.details;
  const text = JSON.stringify(details ?? {});
  const selector = /"selector":"((?:[^"\\]|\\.)*)"/.exec(text)?.[1];
  const snippet = /"snippet":"((?:[^"\\]|\\.)*)"/.exec(text)?.[1];
  return selector ? `${selector}: ${JSON.parse(`"${snippet ?? ""}"`) as string}` : undefined;
}

export async function runLighthouse(chromiumPath: string, url: string): Promise<RunFigures> {
  const browser = await launchDebuggableChromium(chromiumPath);
  try {
    const result = await lighthouse(url, { port: browser.port, output: "json", logLevel: "error", onlyCategories: [...CATEGORIES] });
    if (!result) throw new Error(`Lighthouse returned no result for ${url}`);
    const { lhr } = result;
    if (lhr.runtimeError) throw new Error(`Lighthouse could not audit ${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    const scores = Object.fromEntries(CATEGORIES.map((category) => [category, Math.round((lhr.categories[category]?.score ?? 0) * 100)])) as Record<Category, number>;
    const failedAudits = CATEGORIES.flatMap((category) =>
      (lhr.categories[category]?.auditRefs ?? [])
        .filter((ref) => ref.weight > 0)
        .map((ref) => ({ category, id: ref.id, title: lhr.audits[ref.id]?.title ?? ref.id, score: lhr.audits[ref.id]?.score }))
        .filter((audit): audit is { category: Category; id: string; title: string; score: number } => typeof audit.score === "number" && audit.score < 1),
    ).sort((a, b) => a.score - b.score);
    return {
      url,
      lcpMs: numeric(lhr, "largest-contentful-paint"),
      fcpMs: numeric(lhr, "first-contentful-paint"),
      tbtMs: numeric(lhr, "total-blocking-time"),
      speedIndexMs: numeric(lhr, "speed-index"),
      cls: numeric(lhr, "cumulative-layout-shift"),
      observedFcpMs: observed(lhr, "observedFirstContentfulPaint"),
      observedLcpMs: observed(lhr, "observedLargestContentfulPaint"),
      scores,
      failedAudits,
      lcpElement: lcpElementOf(lhr),
    };
  } finally {
    await browser.stop();
  }
}
