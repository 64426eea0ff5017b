import { describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp } from "../support/app";
import { PageCache } from "../../server/pages/cache";

/** The real built app; `renders()` counts how often the React router is asked to render. */
async function countingApp(env: Record<string, string> = {}) {
  const t = await createTestApp(env);
  return { app: t.app, renders: t.renders, events: t.logs };
}

const nonceOf = (csp: string | undefined) => /'nonce-([^']+)'/.exec(csp ?? "")![1]!;

describe("the page cache", () => {
  it("renders a repeated address once and gives each response its own nonce", async () => {
    // The landing page: its text holds a visit id, so it is kept with slots (the legal pages,
    // the same text for everyone, go without a nonce once compressed: fixed-pages.test.ts).
    const { app, renders } = await countingApp();
    const first = await request(app).get("/zipcode");
    const second = await request(app).get("/zipcode").set("Accept-Encoding", "identity");
    expect(renders()).toBe(1);
    const firstNonce = nonceOf(first.headers["content-security-policy"]);
    const secondNonce = nonceOf(second.headers["content-security-policy"]);
    expect(secondNonce).not.toBe(firstNonce);
    expect(second.text).toContain(`nonce="${secondNonce}"`);
    expect(second.text).not.toContain(firstNonce);
    expect(second.text).not.toContain("@@nonce:");
    const visits = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
    expect(second.text.replaceAll(secondNonce, "N").replace(visits, "V")).toBe(first.text.replaceAll(firstNonce, "N").replace(visits, "V"));
    expect(second.headers["content-length"]).toBe(String(Buffer.byteLength(second.text)));
    expect(second.headers["cache-control"]).toBe("no-cache");
  });

  it("keeps addresses apart, query included", async () => {
    const { app, renders } = await countingApp();
    const a = await request(app).get("/zipcode?sid=a1&error=invalid-zip");
    const b = await request(app).get("/zipcode?sid=b2");
    expect(a.text).toContain('value="a1"');
    expect(b.text).toContain('value="b2"');
    expect(b.text).not.toContain('value="a1"');
    expect(renders()).toBeGreaterThanOrEqual(2);
  });

  it("still logs campaign_hit for pages served from the cache", async () => {
    const { app, events } = await countingApp();
    await request(app).get("/zipcode?sid=a1&tid=b2");
    await request(app).get("/zipcode?sid=a1&tid=b2");
    expect(events.filter((line) => line.event === "campaign_hit")).toHaveLength(2);
  });

  it("keeps the not-found page too, still answered 404 and logged as not_found", async () => {
    const { app, renders, events } = await countingApp();
    await request(app).get("/nope");
    const again = await request(app).get("/nope");
    expect(again.status).toBe(404);
    expect(again.text).toContain("Oops! Page not found");
    expect(renders()).toBe(1);
    expect(events.filter((line) => line.event === "not_found")).toHaveLength(2);
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

describe("ad traffic: one render per page shape, whatever the click id", () => {
  /** Until the shape of `path` has been rendered for the cache (after the first visitor is answered). */
  async function primed(app: Awaited<ReturnType<typeof countingApp>>, path: string): Promise<void> {
    const before = app.renders();
    await request(app.app).get(path);
    await expect.poll(() => app.renders(), { timeout: 5_000 }).toBe(before + 2);
  }
  const normalize = (html: string, nonce: string) => html.replaceAll(nonce, "NONCE").replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "VISIT");

  it("serves every new click id from the cache, with the bytes its own render would have", async () => {
    const cached = await countingApp();
    await primed(cached, "/zipcode?sid=a1&tid=CLK-0001");
    const rendersBefore = cached.renders();
    const fresh = await countingApp({ PAGE_CACHE_MAX_ENTRIES: "0" });
    for (const tid of ["CLK-0002", "x.y_z", "A".repeat(64)]) {
      const path = `/zipcode?sid=a1&tid=${tid}`;
      const hit = await request(cached.app).get(path).set("Accept-Encoding", "identity");
      const own = await request(fresh.app).get(path).set("Accept-Encoding", "identity");
      expect(hit.status).toBe(200);
      expect(hit.text).toContain(`name="tid" value="${tid}"`);
      expect(hit.text).not.toMatch(/zQ[0-9a-f]{24}/);
      expect(normalize(hit.text, nonceOf(hit.headers["content-security-policy"]))).toBe(normalize(own.text, nonceOf(own.headers["content-security-policy"])));
    }
    expect(cached.renders()).toBe(rendersBefore);
  });

  it("gives each response its own visit id and nonce, and carries a visit id that came in the address", async () => {
    const app = await countingApp();
    await primed(app, "/?zip=90210&sid=a1&tid=CLK-1");
    const one = await request(app.app).get("/?zip=90210&sid=a1&tid=CLK-2");
    const two = await request(app.app).get("/?zip=90210&sid=a1&tid=CLK-3");
    const frame = (html: string) => /<iframe[^>]*src="([^"]+)"/.exec(html)?.[1]?.replaceAll("&amp;", "&");
    expect(frame(one.text)).toMatch(/^\/rapidfire\.html\?zip=90210&sid=a1&tid=CLK-2&vid=[0-9a-f-]{36}$/);
    expect(frame(two.text)).toMatch(/^\/rapidfire\.html\?zip=90210&sid=a1&tid=CLK-3&vid=[0-9a-f-]{36}$/);
    expect(frame(one.text)!.slice(-36)).not.toBe(frame(two.text)!.slice(-36));
    await primed(app, "/?zip=90210&sid=a1&tid=CLK-4&vid=visit-one");
    const carried = await request(app.app).get("/?zip=90210&sid=a1&tid=CLK-5&vid=visit-two");
    expect(frame(carried.text)).toBe("/rapidfire.html?zip=90210&sid=a1&tid=CLK-5&vid=visit-two");
  });

  it("sends the page gzip-compressed, compressed once, to a phone that accepts it", async () => {
    const app = await countingApp();
    await primed(app, "/zipcode?tid=CLK-1");
    const response = await request(app.app)
      .get("/zipcode?tid=CLK-2")
      .set("Accept-Encoding", "gzip, deflate, br")
      .buffer(true)
      .parse((res, callback) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => callback(null, Buffer.concat(chunks)));
      });
    expect(response.headers["content-encoding"]).toBe("gzip");
    expect(response.headers.vary).toMatch(/Accept-Encoding/i);
    const raw = response.body as Buffer;
    // supertest hands over the decompressed body; the declared length is the compressed one.
    const html = raw.toString("utf8");
    expect(Number(response.headers["content-length"])).toBeLessThan(Buffer.byteLength(html) / 2);
    expect(html).toContain('name="tid" value="CLK-2"');
    expect(html).toContain(`nonce="${nonceOf(response.headers["content-security-policy"])}"`);
  });

  it("keeps a click id with ~ under its own address (URLs would encode it), rendering it correctly", async () => {
    const app = await countingApp();
    const first = await request(app.app).get("/zipcode?tid=a~b");
    const second = await request(app.app).get("/zipcode?tid=a~b");
    expect(second.text).toContain('name="tid" value="a~b"');
    expect(first.status).toBe(200);
    expect(app.renders()).toBe(1);
  });
});

describe("PageCache shapes", () => {
  const cache = () => new PageCache({ maxEntries: 10, ttlMs: 60_000 });
  const url = (path: string) => new URL(path, "http://ssr.invalid");
  const VISIT_A = "0b7f6a52-5c1e-4d8e-9f3a-2b1c0d9e8f7a";
  const VISIT_B = "9d2e4c61-7a3b-4f0c-8e5d-6c4b3a2f1e0d";

  it("gives addresses that differ only by campaign ids one shape, and keeps everything else in the key", () => {
    const pages = cache();
    const a = pages.shapeOf(url("/zipcode?sid=a1&tid=CLK1&error=invalid-zip"))!;
    const b = pages.shapeOf(url("/zipcode?sid=b2&tid=CLK2&error=invalid-zip"))!;
    expect(a.key).toBe(b.key);
    expect(a.values).toEqual({ sid: "a1", tid: "CLK1" });
    expect(a.templated).toBe(true);
    expect(pages.shapeOf(url("/zipcode?sid=a1&tid=CLK1"))!.key).not.toBe(a.key);
    expect(pages.shapeOf(url("/zipcode?tid=a&tid=b"))!.key).toBe("/zipcode?tid=a&tid=b");
    expect(pages.shapeOf(url("/terms-of-use"))).toMatchObject({ key: "/terms-of-use", templated: false });
    expect(pages.shapeOf(url(`/zipcode?utm=${"x".repeat(600)}`))).toBeUndefined();
  });

  it("fills the nonce, a minted visit id and the campaign ids of each response, wherever they appear", () => {
    const pages = cache();
    const shape = pages.shapeOf(url("/zipcode?tid=CLK1"))!;
    const token = new URLSearchParams(shape.key.split("?")[1]).get("tid")!;
    pages.set(shape, `<script nonce="n1">{"visitId":"${VISIT_A}","tid":"${token}"}</script><input value="${token}"><a href="/?tid=${token}&amp;vid=${VISIT_A}">`, 200, { nonce: "n1", mintedVisitId: VISIT_A });
    const next = pages.shapeOf(url("/zipcode?tid=CLK2"))!;
    const entry = pages.get(next.key)!;
    const values = { nonce: "n2", mintedVisitId: VISIT_B };
    expect(PageCache.fills(entry, values)).toBe(true);
    expect(entry.page.text(PageCache.slotValues(next, values)).toString()).toBe(
      `<script nonce="n2">{"visitId":"${VISIT_B}","tid":"CLK2"}</script><input value="CLK2"><a href="/?tid=CLK2&amp;vid=${VISIT_B}">`,
    );
    // A page with a visit slot cannot be filled without a minted id: a miss, never a broken page.
    expect(PageCache.fills(entry, { nonce: "n3" })).toBe(false);
  });

  it("is off with no entries or no time", () => {
    expect(new PageCache({ maxEntries: 0, ttlMs: 60_000 }).shapeOf(url("/zipcode"))).toBeUndefined();
    expect(new PageCache({ maxEntries: 10, ttlMs: 0 }).shapeOf(url("/zipcode"))).toBeUndefined();
  });
});
