/**
 * The visit id (`vid`) on the pages: minted by the server for a landing or quote page whose
 * address has none, put where the page passes it on (the ZIP form's hidden input, the quote
 * frame's address) and in the router's hydration data, logged with the page's events, and never
 * handed from one visitor to another by the page cache.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { parse } from "node-html-parser";
import { createTestApp, type TestApp } from "../support/app";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.services.close();
});

async function get(path: string) {
  const response = await request(t.app).get(path).set("Accept-Encoding", "identity");
  const doc = parse(response.text);
  const requestId = response.headers["x-request-id"] as string;
  return {
    response,
    html: response.text,
    /** The landing form's hidden vid. */
    hiddenVid: doc.querySelector('form input[type="hidden"][name="vid"]')?.getAttribute("value"),
    /** The quote frame's address. */
    frameSrc: doc.querySelector("iframe")?.getAttribute("src"),
    /** The visit ids in the router's hydration data (what the browser's first render uses). */
    // (React Router writes the data as a JSON string inside the script: its quotes are escaped.)
    hydrationVids: [...response.text.matchAll(/\\?"visitId\\?":\\?"([^"\\]+)/g)].map((match) => match[1]),
    event: (name: string) => t.logs.find((line) => line.requestId === requestId && line.event === name),
  };
}

describe("the landing page (/zipcode)", () => {
  it("mints a visit id when the address has none: in the form's hidden input, the hydration data and the campaign_hit event (an entry)", async () => {
    const page = await get("/zipcode?sid=a1&tid=t1");
    expect(page.response.status).toBe(200);
    expect(page.hiddenVid).toMatch(UUID);
    expect(page.hydrationVids).toEqual([page.hiddenVid]);
    expect(page.event("campaign_hit")).toMatchObject({ campaign: { sid: "a1", tid: "t1", vid: page.hiddenVid }, entry: true });
    // The campaign ids ride along as before, the visit id after them.
    const names = parse(page.html).querySelectorAll('form input[type="hidden"]').map((input) => input.getAttribute("name"));
    expect(names).toEqual(["sid", "tid", "vid"]);
  });

  it("keeps the address's valid visit id (not an entry)", async () => {
    const page = await get("/zipcode?sid=a1&vid=v-42");
    expect(page.hiddenVid).toBe("v-42");
    expect(page.hydrationVids).toEqual(["v-42"]);
    expect(page.event("campaign_hit")).toMatchObject({ campaign: { sid: "a1", vid: "v-42" }, entry: false });
  });

  it.each(["bad%20id", "%3Cscript%3E", "v".repeat(65)])("replaces an invalid visit id (%s) with a new one", async (value) => {
    const page = await get(`/zipcode?sid=a1&vid=${value}`);
    expect(page.hiddenVid).toMatch(UUID);
    expect(page.html).not.toContain("<script>alert");
    expect(page.event("campaign_hit")).toMatchObject({ campaign: { vid: page.hiddenVid }, entry: true });
  });

  it("gives two visitors of the same address different visit ids, also when the page cache serves the second", async () => {
    const counting = await createTestApp();
    try {
      const fetchPage = async () => (await request(counting.app).get("/zipcode?sid=a1&tid=t1").set("Accept-Encoding", "identity")).text;
      const first = await fetchPage();
      // The visitor's own render, then the page's shape rendered once for the cache.
      await expect.poll(() => counting.renders()).toBe(2);
      const second = await fetchPage();
      const third = await fetchPage();
      expect(counting.renders()).toBe(2); // the second and third came from the cache
      const vids = [first, second, third].map((html) => [...new Set(html.match(UUIDS))]);
      for (const found of vids) expect(found).toHaveLength(1); // one visit id per page, in its input and its data
      expect(new Set(vids.map((found) => found[0])).size).toBe(3);
      expect(second).not.toContain(vids[0]![0]);
      expect(second).not.toContain("@@visit:");
      // Apart from the nonce and the visit id, the cached page is the rendered one.
      const normal = (html: string) => html.replace(UUIDS, "V").replace(/nonce="[^"]+"/g, 'nonce="N"');
      expect(normal(second)).toBe(normal(first));
      const hits = counting.logs.filter((line) => line.event === "campaign_hit");
      expect(hits.map((line) => (line.campaign as { vid?: string }).vid)).toEqual(vids.map((found) => found[0]));
    } finally {
      await counting.services.close();
    }
  });

  it("serves a cached page with the address's own visit id unchanged", async () => {
    const counting = await createTestApp();
    try {
      const fetchPage = async () => (await request(counting.app).get("/zipcode?vid=shared-1").set("Accept-Encoding", "identity")).text;
      const first = await fetchPage();
      await expect.poll(() => counting.renders()).toBe(2); // the shape, rendered for the cache
      const second = await fetchPage();
      expect(counting.renders()).toBe(2);
      for (const html of [first, second]) expect(parse(html).querySelector('input[name="vid"]')?.getAttribute("value")).toBe("shared-1");
    } finally {
      await counting.services.close();
    }
  });
});

describe("the quote page (/)", () => {
  it("puts a minted visit id in the frame's address, after the ZIP and campaign ids, and logs quote_page_view with it", async () => {
    const page = await get("/?zip=90210&sid=a1&tid=b2");
    const vid = new URLSearchParams(page.frameSrc?.split("?")[1]).get("vid");
    expect(vid).toMatch(UUID);
    expect(page.frameSrc).toBe(`/rapidfire.html?zip=90210&sid=a1&tid=b2&vid=${vid}`);
    expect(page.hydrationVids).toEqual([vid]);
    expect(page.event("quote_page_view")).toMatchObject({ campaign: { sid: "a1", tid: "b2", vid } });
  });

  it("passes the visit id /go gave it on to the form", async () => {
    const page = await get("/?zip=90210&sid=a1&vid=from-go");
    expect(page.frameSrc).toBe("/rapidfire.html?zip=90210&sid=a1&vid=from-go");
    expect(page.event("quote_page_view")).toMatchObject({ campaign: { sid: "a1", vid: "from-go" } });
  });

  it("never serves one visitor's frame address to another from the page cache", async () => {
    const counting = await createTestApp();
    try {
      const frameOf = async () => parse((await request(counting.app).get("/?zip=90210").set("Accept-Encoding", "identity")).text).querySelector("iframe")?.getAttribute("src");
      const [first, second] = [await frameOf(), await frameOf()];
      expect(counting.renders()).toBe(1);
      expect(first).toMatch(/^\/rapidfire\.html\?zip=90210&vid=[0-9a-f-]{36}$/);
      expect(second).toMatch(/^\/rapidfire\.html\?zip=90210&vid=[0-9a-f-]{36}$/);
      expect(second).not.toBe(first);
    } finally {
      await counting.services.close();
    }
  });
});

describe("the other pages", () => {
  it("carry no visit id (only the landing and quote pages pass one on)", async () => {
    for (const path of ["/terms-of-use", "/privacy-policy?sid=a1"]) {
      const page = await get(path);
      expect(page.hydrationVids, path).toEqual([]);
      expect(page.html.match(UUIDS), path).toBeNull();
    }
  });
});
