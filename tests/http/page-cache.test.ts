import { describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp } from "../support/app";
import { PageCache } from "../../server/page-cache";

/** The real built app; `renders()` counts how often the React router is asked to render. */
async function countingApp(env: Record<string, string> = {}) {
  const t = await createTestApp(env);
  return { app: t.app, renders: t.renders, events: t.logs };
}

const nonceOf = (csp: string | undefined) => /'nonce-([^']+)'/.exec(csp ?? "")![1]!;

describe("the page cache", () => {
  it("renders a repeated address once and gives each response its own nonce", async () => {
    const { app, renders } = await countingApp();
    const first = await request(app).get("/terms-of-use");
    const second = await request(app).get("/terms-of-use").set("Accept-Encoding", "identity");
    expect(renders()).toBe(1);
    const firstNonce = nonceOf(first.headers["content-security-policy"]);
    const secondNonce = nonceOf(second.headers["content-security-policy"]);
    expect(secondNonce).not.toBe(firstNonce);
    expect(second.text).toContain(`nonce="${secondNonce}"`);
    expect(second.text).not.toContain(firstNonce);
    expect(second.text).not.toContain("@@nonce:");
    expect(second.text.replaceAll(secondNonce, "N")).toBe(first.text.replaceAll(firstNonce, "N"));
    expect(second.headers["content-length"]).toBe(String(Buffer.byteLength(second.text)));
    expect(second.headers["cache-control"]).toBe("no-cache");
  });

  it("keeps addresses apart, query included", async () => {
    const { app, renders } = await countingApp();
    const a = await request(app).get("/zipcode?sid=a1");
    const b = await request(app).get("/zipcode?sid=b2");
    expect(renders()).toBe(2);
    expect(a.text).toContain('value="a1"');
    expect(b.text).toContain('value="b2"');
    expect(b.text).not.toContain('value="a1"');
  });

  it("still logs campaign_hit for pages served from the cache", async () => {
    const { app, events } = await countingApp();
    await request(app).get("/zipcode?sid=a1&tid=b2");
    await request(app).get("/zipcode?sid=a1&tid=b2");
    expect(events.filter((line) => line.event === "campaign_hit")).toHaveLength(2);
  });

  it("never keeps 404 pages, so random paths cannot crowd it", async () => {
    const { app, renders } = await countingApp();
    await request(app).get("/nope");
    const again = await request(app).get("/nope");
    expect(again.status).toBe(404);
    expect(renders()).toBe(2);
  });

  it("answers HEAD from the cache without a body", async () => {
    const { app, renders } = await countingApp();
    await request(app).get("/privacy-policy");
    const head = await request(app).head("/privacy-policy");
    expect(head.status).toBe(200);
    expect(head.text ?? "").toBe("");
    expect(renders()).toBe(1);
  });

  it("is off with PAGE_CACHE_MAX_ENTRIES=0", async () => {
    const { app, renders } = await countingApp({ PAGE_CACHE_MAX_ENTRIES: "0" });
    await request(app).get("/terms-of-use");
    await request(app).get("/terms-of-use");
    expect(renders()).toBe(2);
  });

  it("lets entries expire after PAGE_CACHE_TTL_MS", async () => {
    const { app, renders } = await countingApp({ PAGE_CACHE_TTL_MS: "30" });
    await request(app).get("/terms-of-use");
    await new Promise((resolve) => setTimeout(resolve, 80));
    await request(app).get("/terms-of-use");
    expect(renders()).toBe(2);
  });

  it("renders very long addresses every time", async () => {
    const { app, renders } = await countingApp();
    const long = `/zipcode?utm=${"x".repeat(600)}`;
    await request(app).get(long);
    await request(app).get(long);
    expect(renders()).toBe(2);
  });
});

describe("PageCache, per-response values", () => {
  const cache = () => new PageCache({ maxEntries: 10, ttlMs: 60_000 });
  const VISIT_A = "0b7f6a52-5c1e-4d8e-9f3a-2b1c0d9e8f7a";
  const VISIT_B = "9d2e4c61-7a3b-4f0c-8e5d-6c4b3a2f1e0d";

  it("swaps a minted visit id like the nonce: each hit gets its own, wherever it appears", () => {
    const pages = cache();
    pages.set("/zipcode", `<script nonce="n1">{"visitId":"${VISIT_A}"}</script><input value="${VISIT_A}">`, { nonce: "n1", mintedVisitId: VISIT_A });
    expect(pages.get("/zipcode", { nonce: "n2", mintedVisitId: VISIT_B })).toBe(
      `<script nonce="n2">{"visitId":"${VISIT_B}"}</script><input value="${VISIT_B}">`,
    );
  });

  it("keeps a visit id that came with the address (it is part of the key, the same for everyone)", () => {
    const pages = cache();
    pages.set("/zipcode?vid=a", '<input value="a"><p>a</p>', { nonce: "n1" });
    expect(pages.get("/zipcode?vid=a", { nonce: "n2" })).toBe('<input value="a"><p>a</p>');
  });

  it("answers a miss rather than a page with a visit placeholder it cannot fill", () => {
    const pages = cache();
    pages.set("/", `<input value="${VISIT_A}">`, { nonce: "n1", mintedVisitId: VISIT_A });
    expect(pages.get("/", { nonce: "n2" })).toBeUndefined();
  });

  it("fills a page without a visit id whether or not one was minted", () => {
    const pages = cache();
    pages.set("/terms-of-use", '<p nonce="n1">terms</p>', { nonce: "n1", mintedVisitId: VISIT_A });
    expect(pages.get("/terms-of-use", { nonce: "n2" })).toBe('<p nonce="n2">terms</p>');
    expect(pages.get("/terms-of-use", { nonce: "n3", mintedVisitId: VISIT_B })).toBe('<p nonce="n3">terms</p>');
  });
});
