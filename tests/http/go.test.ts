import { beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import fc from "fast-check";
import { createTestApp, type TestApp } from "../support/app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * One /go request. `location` is the Location without its visit id (every answer carries one,
 * usually minted: see the "visit id" tests), `vid` that visit id, `raw` the Location as sent.
 */
async function go(query: string) {
  const response = await request(t.app).get(`/go${query}`).redirects(0);
  const raw = response.headers.location as string | undefined;
  const url = raw === undefined ? undefined : new URL(raw, "http://ssr.invalid");
  const vid = url?.searchParams.get("vid") ?? undefined;
  url?.searchParams.delete("vid");
  const location = url && `${url.pathname}${url.search}`;
  return { status: response.status, location, vid, raw, requestId: response.headers["x-request-id"] as string };
}

function eventFor(requestId: string, name = "zip_submitted") {
  return t.events(name).find((line) => line.requestId === requestId);
}

describe("GET /go with a valid ZIP", () => {
  it("sends the visitor to the quote page with zip, sid and tid (303, relative)", async () => {
    const { status, location } = await go("?zip=90210&sid=a1&tid=b2");
    expect(status).toBe(303);
    expect(location).toBe("/?zip=90210&sid=a1&tid=b2");
  });

  it("carries only the campaign ids that are present", async () => {
    expect((await go("?zip=90210")).location).toBe("/?zip=90210");
    expect((await go("?zip=90210&tid=b2")).location).toBe("/?zip=90210&tid=b2");
  });

  it("drops an invalid sid or tid, keeps the rest, and logs what was dropped", async () => {
    const { location, requestId } = await go("?zip=90210&sid=bad%20id&tid=b2");
    expect(location).toBe("/?zip=90210&tid=b2");
    expect(eventFor(requestId)).toMatchObject({
      event: "zip_submitted",
      outcome: "accepted",
      zip: "90210",
      campaign: { tid: "b2" },
      rejected: [{ param: "sid", reason: "bad_characters" }],
    });
  });

  it("drops a campaign id longer than 64 characters", async () => {
    const { location, requestId } = await go(`?zip=90210&sid=${"a".repeat(65)}`);
    expect(location).toBe("/?zip=90210");
    expect(eventFor(requestId)?.rejected).toEqual([{ param: "sid", reason: "too_long" }]);
  });

  it("logs zip_submitted with the campaign for the analysts", async () => {
    const { requestId } = await go("?zip=10001&sid=s-1&tid=t.2");
    expect(eventFor(requestId)).toMatchObject({ outcome: "accepted", zip: "10001", campaign: { sid: "s-1", tid: "t.2" }, path: "/go" });
  });
});

describe("GET /go with a bad ZIP", () => {
  it("sends the visitor back to the landing page, keeping valid sid and tid", async () => {
    const { status, location, requestId } = await go("?zip=123&sid=a1&tid=b2");
    expect(status).toBe(303);
    expect(location).toBe("/zipcode?sid=a1&tid=b2&error=invalid-zip");
    expect(eventFor(requestId)).toMatchObject({ outcome: "invalid_zip", campaign: { sid: "a1", tid: "b2" }, rejected: [{ param: "zip", reason: "bad_characters" }] });
    expect(eventFor(requestId)).not.toHaveProperty("zip");
  });

  it("treats a missing ZIP as its own outcome", async () => {
    const { location, requestId } = await go("");
    expect(location).toBe("/zipcode?error=invalid-zip");
    expect(eventFor(requestId)?.outcome).toBe("missing_zip");
  });

  it.each([
    ["a repeated zip", "?zip=12345&zip=54321&sid=a1", "/zipcode?sid=a1&error=invalid-zip"],
    ["a bracketed key", "?zip[a]=12345&sid=a1", "/zipcode?sid=a1&error=invalid-zip"],
    ["an array key", "?zip[]=12345", "/zipcode?error=invalid-zip"],
    ["bad percent-encoding", "?zip=%ZZ%&sid=%E0%A4%A", "/zipcode?error=invalid-zip"],
    ["a lone percent sign", "?zip=%", "/zipcode?error=invalid-zip"],
    ["a NUL byte", "?zip=12345%00", "/zipcode?error=invalid-zip"],
    ["full-width digits", "?zip=%EF%BC%91%EF%BC%92%EF%BC%93%EF%BC%94%EF%BC%95", "/zipcode?error=invalid-zip"],
  ])("answers %s with a clean redirect to the landing page", async (_name, query, expected) => {
    const { status, location } = await go(query);
    expect(status).toBe(303);
    expect(location).toBe(expected);
  });

  it("drops a repeated sid instead of choosing one", async () => {
    const { location, requestId } = await go("?zip=90210&sid=a&sid=b");
    expect(location).toBe("/?zip=90210");
    expect(eventFor(requestId)?.rejected).toEqual([{ param: "sid", reason: "repeated" }]);
  });
});

describe("GET /go and the visit id (vid)", () => {
  it("carries a valid vid to the quote page, after the campaign ids, and logs it", async () => {
    const { raw, requestId } = await go("?zip=90210&sid=a1&tid=b2&vid=v-1.x");
    expect(raw).toBe("/?zip=90210&sid=a1&tid=b2&vid=v-1.x");
    expect(eventFor(requestId)).toMatchObject({ outcome: "accepted", campaign: { sid: "a1", tid: "b2", vid: "v-1.x" } });
  });

  it("carries it back to the landing page on a bad ZIP", async () => {
    expect((await go("?zip=12&sid=a1&vid=v-1")).raw).toBe("/zipcode?sid=a1&vid=v-1&error=invalid-zip");
  });

  it("mints a new one for a link straight to /go, different each time, and logs it", async () => {
    const first = await go("?zip=90210&sid=a1");
    const second = await go("?zip=90210&sid=a1");
    expect(first.vid).toMatch(UUID);
    expect(second.vid).toMatch(UUID);
    expect(second.vid).not.toBe(first.vid);
    expect(first.raw).toBe(`/?zip=90210&sid=a1&vid=${first.vid}`);
    expect(eventFor(first.requestId)?.campaign).toEqual({ sid: "a1", vid: first.vid });
    const back = await go("?zip=1");
    expect(back.raw).toBe(`/zipcode?vid=${back.vid}&error=invalid-zip`);
    expect(back.vid).toMatch(UUID);
  });

  it.each([
    ["with a space", "bad%20id", "bad_characters"],
    ["with markup", "%3Cscript%3E", "bad_characters"],
    ["pointing off-site", "%2F%2Fevil.example", "bad_characters"],
    ["too long", "v".repeat(65), "too_long"],
    ["empty", "", "empty"],
  ])("drops a vid %s, logs why, and mints one in its place", async (_name, value, reason) => {
    const { raw, vid, requestId } = await go(`?zip=90210&vid=${value}`);
    expect(vid).toMatch(UUID);
    expect(raw).toBe(`/?zip=90210&vid=${vid}`);
    expect(eventFor(requestId)?.rejected).toEqual([{ param: "vid", reason }]);
  });

  it("replaces a repeated vid instead of choosing one", async () => {
    const { vid, requestId } = await go("?zip=90210&vid=a&vid=b");
    expect(vid).toMatch(UUID);
    expect(eventFor(requestId)?.rejected).toEqual([{ param: "vid", reason: "repeated" }]);
  });
});

describe("GET /go never redirects off-site", () => {
  it.each([
    "?zip=90210&sid=%2F%2Fevil.example",
    "?zip=90210&sid=https%3A%2F%2Fevil.example",
    "?zip=90210&tid=a%0D%0ASet-Cookie%3A%20x%3D1",
    "?zip=90210&vid=%2F%2Fevil.example",
    "?zip=12&vid=https%3A%2F%2Fevil.example%0D%0ALocation%3A%20x",
    "?zip=90210&next=%2F%2Fevil.example&redirect=https://evil.example",
    "?zip=%2F%2Fevil.example",
  ])("keeps %s on this site", async (query) => {
    const { status, raw } = await go(query);
    expect(status).toBe(303);
    expect(raw).toMatch(/^\/(\?|zipcode\?)/);
    expect(raw).not.toMatch(/evil|\/\/|[\r\n]/i);
  });

  it("answers any query whatsoever with a 303 to one of our two pages", async () => {
    const key = fc.constantFrom("zip", "sid", "tid", "vid", "zip[]", "sid[x]", "vid[]", "next", "%", "");
    const value = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("%", "%E0%A4%A", "%00", "//evil.example", "90210", "a1"));
    const pair = fc.tuple(key, value).map(([k, v]) => `${k}=${v.replace(/[#&\s]/g, "")}`);
    await fc.assert(
      fc.asyncProperty(fc.array(pair, { maxLength: 6 }), async (pairs) => {
        const { status, raw, vid } = await go(`?${pairs.join("&")}`);
        return (
          status === 303 && typeof raw === "string" && /^\/(\?zip=\d{5}|zipcode\?)/.test(raw) && !raw.includes("//") &&
          vid !== undefined && /^[A-Za-z0-9._~-]{1,64}$/.test(vid)
        );
      }),
      { numRuns: 60 },
    );
  });
});
