import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { addBusinessDays, dueDate } from "../../server/privacy/deadlines";
import { REQUEST_DEADLINES } from "../../client/pages/privacy-request-pages";
import { parse } from "node-html-parser";
import { createTestApp, type TestApp } from "../support/app";
import { PRIVACY_REFERENCE_PATTERN } from "../../shared/privacy-request";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ PRIVACY_RATE_LIMIT: "1000" });
});
afterAll(async () => {
  await t.services.close();
});

let submissionCounter = 0;
const newSubmissionId = () => `00000000-0000-4000-8000-${String(++submissionCounter).padStart(12, "0")}`;

/** Opens the form like a browser: the CSRF cookie and the form's hidden fields. */
async function openForm(headers: Record<string, string> = {}) {
  const response = await request(t.app).get("/do-not-sell").set(headers);
  const doc = parse(response.text);
  const cookie = (response.headers["set-cookie"] as unknown as string[] | undefined)?.map((line) => line.split(";")[0]).join("; ") ?? "";
  return {
    response,
    doc,
    cookie,
    csrf: doc.querySelector('input[name="_csrf"]')?.getAttribute("value") ?? "",
    submissionId: doc.querySelector('input[name="submissionId"]')?.getAttribute("value") ?? "",
  };
}

async function rows() {
  return (await t.services.repository()).list();
}

async function postForm(fields: Record<string, string>, { cookie, headers = {} }: { cookie: string; headers?: Record<string, string> }) {
  return request(t.app).post("/do-not-sell").set({ Cookie: cookie, ...headers }).type("form").send(fields).redirects(0);
}

describe("GET /do-not-sell", () => {
  it('opens on "Stop calls and texts" from the footer\'s link, and on no choice for anything else in the address', async () => {
    const checked = async (url: string) => parse((await request(t.app).get(url)).text).querySelectorAll('input[name="requestType"]').filter((input) => input.hasAttribute("checked")).map((input) => input.getAttribute("value"));
    expect(await checked("/do-not-sell?request=revoke_consent")).toEqual(["revoke_consent"]);
    expect(await checked("/do-not-sell?request=%3Cscript%3E")).toEqual([]);
    expect(await checked("/do-not-sell")).toEqual([]);
    const footer = parse((await request(t.app).get("/do-not-sell")).text).querySelectorAll('footer nav[aria-label="Legal"] a');
    expect(footer.map((link) => [link.getAttribute("href"), link.text])).toContainEqual(["/do-not-sell?request=revoke_consent", "Stop Calls and Texts"]);
  });

  it('gives the "Stop Calls and Texts" address its own heading, title and words, posting back to itself, never cached', async () => {
    const stop = await request(t.app).get("/do-not-sell?request=revoke_consent");
    const doc = parse(stop.text);
    expect(stop.status).toBe(200);
    expect(stop.headers["cache-control"]).toBe("no-store");
    expect(doc.querySelector("h1")?.text).toBe("Stop calls and texts");
    expect(doc.querySelector("title")?.text).toBe("Stop calls and texts | QuoteRidge");
    expect(doc.querySelector("main")?.text).toContain("The law gives them up to 10 business days to stop calling and texting you.");
    expect(doc.querySelector("main")?.text).not.toContain("under state privacy laws that is a sale");
    expect(doc.querySelector("form.privacy-form")?.getAttribute("action")).toBe("/do-not-sell?request=revoke_consent");
    // Any other address, a preselected other request included, is the Do Not Sell page.
    for (const url of ["/do-not-sell", "/do-not-sell?request=access", "/do-not-sell?request=%3Cscript%3E"]) {
      const other = parse((await request(t.app).get(url)).text);
      expect([other.querySelector("h1")?.text, other.querySelector("title")?.text], url).toEqual(["Do Not Sell or Share My Personal Information", "Do Not Sell or Share My Personal Information | QuoteRidge"]);
      expect(other.querySelector("form.privacy-form")?.getAttribute("action"), url).toBe("/do-not-sell");
    }
  });

  it("shows the form with every request type, contact fields, a CSRF token and a one-time submission id", async () => {
    const { response, doc, csrf, submissionId } = await openForm();
    expect(response.status).toBe(200);
    expect(doc.querySelector("h1")?.text).toBe("Do Not Sell or Share My Personal Information");
    const form = doc.querySelector("form.privacy-form")!;
    expect(form.getAttribute("method")).toBe("post");
    expect(form.getAttribute("action")).toBe("/do-not-sell");
    expect(form.querySelectorAll('input[name="requestType"]').map((input) => input.getAttribute("value"))).toEqual([
      "revoke_consent",
      "opt_out_sale_sharing",
      "nevada_opt_out",
      "access",
      "deletion",
      "correction",
      "appeal",
    ]);
    for (const name of ["email", "phone", "state", "details"]) expect(form.querySelector(`[name="${name}"]`), name).not.toBeNull();
    for (const id of ["privacy-email", "privacy-phone", "privacy-state", "privacy-details"]) {
      expect(doc.querySelector(`label[for="${id}"]`), id).not.toBeNull();
    }
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(submissionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("says before a request is sent that selling and sharing stop within 15 business days of an opt-out, and how soon each other request is answered", async () => {
    const { doc } = await openForm();
    const main = doc.querySelector("main")!;
    expect(main.querySelector('[data-testid="privacy-received"]'), "nothing sent yet").toBeNull();
    const timings = main.querySelector('[data-testid="request-timings"]');
    expect(timings?.querySelector("h2")?.text).toBe("How soon we act");
    const items = timings?.querySelectorAll("li").map((item) => item.text.replace(/\s+/g, " ").trim()) ?? [];
    expect(items).toEqual([
      "Do not sell or share: we stop selling and sharing your personal information within 15 business days; our systems apply it as soon as your request arrives.",
      "Nevada opt-out: applied the same way; we respond within 60 days (30 more at most, if we tell you).",
      "Stop calls and texts: your consent is revoked at once; companies that have your quote request must stop calling and texting within 10 business days.",
      "Know, delete or correct: we respond within 45 days (45 more at most, if we tell you why), and may first verify your identity. Appeals: within 45 days.",
    ]);
    // Before the form, where a visitor reads it before sending.
    const children = main.childNodes.filter((node) => node.nodeType === 1);
    expect(children.indexOf(timings!)).toBeLessThan(children.indexOf(main.querySelector("form.privacy-form")!));
  });

  it("promises the deadlines the server keeps for each request (server/privacy/deadlines.ts)", () => {
    const monday = new Date("2026-11-02T17:00:00Z");
    const days = (type: Parameters<typeof dueDate>[0]) => (dueDate(type, monday).getTime() - monday.getTime()) / 86_400_000;
    expect(dueDate("opt_out_sale_sharing", monday)).toEqual(addBusinessDays(monday, REQUEST_DEADLINES.optOutBusinessDays));
    expect(dueDate("revoke_consent", monday)).toEqual(addBusinessDays(monday, REQUEST_DEADLINES.revokeConsentBusinessDays));
    expect(days("nevada_opt_out")).toBe(REQUEST_DEADLINES.nevadaOptOutDays);
    for (const type of ["access", "deletion", "correction", "appeal"] as const) expect(days(type), type).toBe(REQUEST_DEADLINES.answerDays);
  });

  it('keeps the "Stop calls and texts" face to its own request before sending: 10 business days for calls and texts, 15 only for an opt-out chosen instead', async () => {
    const main = parse((await request(t.app).get("/do-not-sell?request=revoke_consent")).text).querySelector("main")!;
    const text = main.text.replace(/\s+/g, " ");
    expect(main.querySelector('[data-testid="privacy-received"]'), "nothing sent yet").toBeNull();
    expect(main.querySelector('[data-testid="request-timings"]'), "the Do Not Sell face's list is not this face's").toBeNull();
    expect(text).toContain("The law gives them up to 10 business days to stop calling and texting you.");
    expect(text).toContain("This does not delete your information or stop its sale: for that, choose another request below (we stop selling and sharing within 15 business days of an opt-out).");
    expect(text.match(/15 business days/g)).toHaveLength(1);
  });

  it("sets an HttpOnly, SameSite=Strict CSRF cookie and is never cached", async () => {
    const first = await openForm();
    const setCookie = String(first.response.headers["set-cookie"]);
    expect(setCookie).toMatch(/qr_csrf=[A-Za-z0-9_-]{24}; Path=\/; HttpOnly; SameSite=Strict/);
    expect(first.response.headers["cache-control"]).toBe("no-store");
    const second = await openForm();
    expect(second.submissionId).not.toBe(first.submissionId);
  });

  it("says 'Opt-out request honored' when the browser sends Global Privacy Control", async () => {
    const withGpc = await openForm({ "Sec-GPC": "1" });
    expect(withGpc.doc.querySelector('[data-testid="gpc-status"]')?.text).toContain("Opt-out request honored");
    const without = await openForm();
    expect(without.response.text).not.toContain("Opt-out request honored");
  });

  it("shows the confirmation with the reference after the redirect, and ignores a malformed one", async () => {
    const ok = await request(t.app).get("/do-not-sell?received=PR-7K3M-Q9XD");
    expect(parse(ok.text).querySelector('[data-testid="privacy-received"]')?.text).toContain("PR-7K3M-Q9XD");
    const bad = await request(t.app).get("/do-not-sell?received=%3Cscript%3E");
    expect(bad.text).not.toContain("We received your request");
  });

  it("is linked from every footer", async () => {
    for (const path of ["/zipcode", "/privacy-policy", "/terms-of-use", "/do-not-sell"]) {
      const doc = parse((await request(t.app).get(path)).text);
      expect(doc.querySelectorAll("footer a").some((link) => link.getAttribute("href") === "/do-not-sell"), path).toBe(true);
    }
  });
});

describe("POST /do-not-sell (the form without JavaScript)", () => {
  it("stores a good request exactly once, with GPC, and redirects to the confirmation (303)", async () => {
    const form = await openForm();
    const before = (await rows()).length;
    const response = await postForm(
      { _csrf: form.csrf, submissionId: form.submissionId, requestType: "opt_out_sale_sharing", email: " Pat@Example.COM ", phone: "(415) 555-0134", state: "ca" },
      { cookie: form.cookie, headers: { "Sec-GPC": "1" } },
    );
    expect(response.status).toBe(303);
    const location = response.headers.location as string;
    expect(location).toMatch(/^\/do-not-sell\?received=PR-/);
    const reference = new URLSearchParams(location.split("?")[1]).get("received")!;
    expect(reference).toMatch(PRIVACY_REFERENCE_PATTERN);
    const all = await rows();
    expect(all).toHaveLength(before + 1);
    expect(all.find((row) => row.reference === reference)).toMatchObject({
      requestType: "opt_out_sale_sharing",
      email: "pat@example.com",
      phone: "+14155550134",
      state: "CA",
      details: null,
      gpc: true,
      status: "received",
    });
  });

  it("confirms a revocation of consent on the Stop calls and texts page, in its words", async () => {
    const opened = await request(t.app).get("/do-not-sell?request=revoke_consent");
    const doc = parse(opened.text);
    const cookie = (opened.headers["set-cookie"] as unknown as string[]).map((line) => line.split(";")[0]).join("; ");
    const fields = {
      _csrf: doc.querySelector('input[name="_csrf"]')!.getAttribute("value")!,
      submissionId: doc.querySelector('input[name="submissionId"]')!.getAttribute("value")!,
      requestType: "revoke_consent",
      phone: "(415) 555-0179",
    };
    const response = await request(t.app).post("/do-not-sell?request=revoke_consent").set({ Cookie: cookie }).type("form").send(fields).redirects(0);
    expect(response.status).toBe(303);
    const location = response.headers.location as string;
    expect(location).toMatch(/^\/do-not-sell\?request=revoke_consent&received=PR-/);
    const reference = new URLSearchParams(location.split("?")[1]).get("received")!;
    expect((await rows()).find((row) => row.reference === reference)).toMatchObject({ requestType: "revoke_consent", phone: "+14155550179" });
    const confirmation = parse((await request(t.app).get(location)).text);
    expect(confirmation.querySelector("h1")?.text).toBe("Stop calls and texts");
    const received = confirmation.querySelector('[data-testid="privacy-received"]')?.text;
    expect(received).toContain(reference);
    expect(received).toContain("revoked from now on");
    expect(received).not.toContain("We stop selling and sharing");
  });

  it("answers a second submit of the same form with 409 and the first reference, storing nothing new", async () => {
    const form = await openForm();
    const fields = { _csrf: form.csrf, submissionId: form.submissionId, requestType: "deletion", email: "twice@example.com" };
    const first = await postForm(fields, { cookie: form.cookie });
    expect(first.status).toBe(303);
    const count = (await rows()).length;
    const second = await postForm(fields, { cookie: form.cookie });
    expect(second.status).toBe(409);
    expect(second.text).toContain(new URLSearchParams(String(first.headers.location).split("?")[1]).get("received")!);
    expect((await rows()).length).toBe(count);
  });

  it.each([
    ["no request type", { email: "a@example.com" }, ["Choose what you would like us to do."]],
    ["an unknown request type", { requestType: "sell_more", email: "a@example.com" }, ["Choose one of the listed requests."]],
    ["neither email nor phone", { requestType: "access" }, ["Give an email address or a phone number"]],
    ["a bad email", { requestType: "access", email: "not-an-email" }, ["Enter an email address like name@example.com."]],
    ["a bad phone", { requestType: "access", phone: "555-0134" }, ["Enter a 10-digit US phone number"]],
    ["an unknown state", { requestType: "access", email: "a@example.com", state: "ZZ" }, ["Choose a state from the list."]],
    ["too long details", { requestType: "correction", email: "a@example.com", details: "x".repeat(1001) }, ["Keep this under 1000 characters."]],
  ])("answers %s with 422, field messages, the values kept, and stores nothing", async (_name, fields, messages) => {
    const form = await openForm();
    const count = (await rows()).length;
    const response = await postForm({ _csrf: form.csrf, submissionId: form.submissionId, ...fields }, { cookie: form.cookie });
    expect(response.status).toBe(422);
    const doc = parse(response.text);
    const summary = doc.querySelector('[data-testid="error-summary"]')?.text ?? "";
    for (const message of messages) expect(summary).toContain(message);
    if ("email" in fields && fields.email) expect(doc.querySelector("#privacy-email")?.getAttribute("value")).toBe(fields.email);
    expect(doc.querySelector('[aria-invalid="true"]')).not.toBeNull();
    expect((await rows()).length).toBe(count);
  });

  it("refuses a field sent twice", async () => {
    const form = await openForm();
    const response = await request(t.app)
      .post("/do-not-sell")
      .set("Cookie", form.cookie)
      .type("form")
      .send(`_csrf=${form.csrf}&submissionId=${form.submissionId}&requestType=access&requestType=deletion&email=a%40example.com`)
      .redirects(0);
    expect(response.status).toBe(422);
  });

  it("refuses a form without a valid CSRF token (403) and stores nothing", async () => {
    const form = await openForm();
    const count = (await rows()).length;
    const fields = { submissionId: newSubmissionId(), requestType: "access", email: "a@example.com" };
    expect((await postForm(fields, { cookie: form.cookie })).status).toBe(403);
    expect((await postForm({ ...fields, _csrf: "forged" }, { cookie: form.cookie })).status).toBe(403);
    expect((await postForm({ ...fields, _csrf: form.csrf }, { cookie: "" })).status).toBe(403);
    const other = await openForm();
    expect((await postForm({ ...fields, _csrf: other.csrf }, { cookie: form.cookie })).status).toBe(403);
    expect((await rows()).length).toBe(count);
  });

  it("refuses other content types (415) and oversized bodies (413)", async () => {
    const form = await openForm();
    const json = await request(t.app).post("/do-not-sell").set("Cookie", form.cookie).send({ _csrf: form.csrf, requestType: "access" });
    expect(json.status).toBe(415);
    const big = await postForm({ _csrf: form.csrf, submissionId: form.submissionId, requestType: "access", email: "a@example.com", details: "x".repeat(20_000) }, { cookie: form.cookie });
    expect(big.status).toBe(413);
    expect(big.text).toContain("too large");
  });

  it("answers a form without its submission id with 400", async () => {
    const form = await openForm();
    const response = await postForm({ _csrf: form.csrf, requestType: "access", email: "a@example.com" }, { cookie: form.cookie });
    expect(response.status).toBe(400);
    expect(response.text).toContain("expired");
  });
});

describe("POST /api/privacy-requests (the form with JavaScript)", () => {
  async function postJson(body: unknown, form: { cookie: string; csrf: string }, extra: Record<string, string> = {}) {
    return request(t.app).post("/api/privacy-requests").set({ Cookie: form.cookie, "X-CSRF-Token": form.csrf, ...extra }).send(body as object);
  }

  it("stores a good request and answers 201 with the reference and the due date", async () => {
    const form = await openForm();
    const response = await postJson({ submissionId: newSubmissionId(), requestType: "nevada_opt_out", phone: "+1 702 555 0188", state: "NV" }, form);
    expect(response.status).toBe(201);
    expect(response.body.reference).toMatch(PRIVACY_REFERENCE_PATTERN);
    expect(new Date(response.body.dueAt).getTime()).toBeGreaterThan(Date.now() + 59 * 86_400_000);
    const stored = await (await t.services.repository()).findByReference(response.body.reference);
    expect(stored).toMatchObject({ requestType: "nevada_opt_out", phone: "+17025550188", email: null, state: "NV", gpc: false });
  });

  it("stores an appeal of an earlier decision with its reasons, due in the 45 days the policy promises", async () => {
    const form = await openForm();
    const details = "PR-7K3M-Q9XD: you said you could not find my data, but partners still call me";
    const response = await postJson({ submissionId: newSubmissionId(), requestType: "appeal", email: "ana@example.com", state: "CO", details }, form);
    expect(response.status).toBe(201);
    const due = new Date(response.body.dueAt).getTime() - Date.now();
    expect(due).toBeGreaterThan(44.9 * 86_400_000);
    expect(due).toBeLessThanOrEqual(45 * 86_400_000);
    const stored = await (await t.services.repository()).findByReference(response.body.reference);
    expect(stored).toMatchObject({ requestType: "appeal", email: "ana@example.com", state: "CO", details });
    const empty = await postJson({ submissionId: newSubmissionId(), requestType: "appeal", email: "ana@example.com" }, form);
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual({ details: "Give the reference number of the request you are appealing (like PR-7K3M-Q9XD) and tell us why." });
  });

  it("takes a revocation of consent to be contacted, due in 10 business days, and answers the same whether or not we hold a lead", async () => {
    const form = await openForm();
    const answers = [];
    for (const email of ["never.seen@example.com", "someone.else@example.com"]) {
      const response = await postJson({ submissionId: newSubmissionId(), requestType: "revoke_consent", email }, form);
      expect(response.status).toBe(201);
      answers.push(Object.keys(response.body as object).sort());
      const stored = await (await t.services.repository()).findByReference(response.body.reference);
      expect(stored).toMatchObject({ requestType: "revoke_consent", email });
      expect(new Date(response.body.dueAt).getTime()).toBe(addBusinessDays(stored!.receivedAt, 10).getTime());
    }
    expect(answers[0]).toEqual(answers[1]);
  });

  it("answers field errors with 422 JSON", async () => {
    const form = await openForm();
    const response = await postJson({ submissionId: newSubmissionId(), requestType: "access", email: "nope" }, form);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ status: "invalid", errors: { email: "Enter an email address like name@example.com." } });
  });

  it("answers a repeated submission id with 409 and the first reference", async () => {
    const form = await openForm();
    const body = { submissionId: newSubmissionId(), requestType: "access", email: "again@example.com" };
    const first = await postJson(body, form);
    const second = await postJson(body, form);
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ status: "error", error: "We already received this request.", reference: first.body.reference });
  });

  it("refuses missing CSRF (403), other content types (415), bad JSON (400), non-objects (400), big bodies (413), in the API's envelope", async () => {
    const form = await openForm();
    const count = (await rows()).length;
    const body = { submissionId: newSubmissionId(), requestType: "access", email: "a@example.com" };
    const noCsrf = await request(t.app).post("/api/privacy-requests").set("Cookie", form.cookie).send(body);
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body).toEqual({ status: "error", error: expect.stringContaining("Reload the page") });
    const form415 = await request(t.app).post("/api/privacy-requests").set({ Cookie: form.cookie, "X-CSRF-Token": form.csrf }).type("form").send(body);
    expect(form415.status).toBe(415);
    expect(form415.body).toEqual({ status: "error", error: expect.stringMatching(/application\/json/) });
    const badJson = await request(t.app).post("/api/privacy-requests").set({ Cookie: form.cookie, "X-CSRF-Token": form.csrf, "Content-Type": "application/json" }).send('{"requestType":');
    expect(badJson.status).toBe(400);
    expect(badJson.body).toEqual({ status: "error", error: expect.stringMatching(/JSON/) });
    const notObject = await postJson([body], form);
    expect(notObject.status).toBe(400);
    expect(notObject.body).toEqual({ status: "error", error: "Send the form's fields as a JSON object." });
    const big = await postJson({ ...body, details: "x".repeat(20_000) }, form);
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ status: "error", error: expect.stringContaining("too large") });
    expect((await rows()).length).toBe(count);
  });

  it("answers a form without its submission id (an expired page) with 400 in the envelope", async () => {
    const form = await openForm();
    const response = await postJson({ requestType: "access", email: "a@example.com" }, form);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ status: "error", error: expect.stringContaining("expired") });
  });

  it("stores 200 simultaneous submissions exactly once each", async () => {
    const form = await openForm();
    const before = (await rows()).length;
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, index) => postJson({ submissionId: newSubmissionId(), requestType: "opt_out_sale_sharing", email: `p${index}@example.com` }, form)),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(200).fill(201));
    expect(new Set(responses.map((response) => response.body.reference)).size).toBe(200);
    expect((await rows()).length).toBe(before + 200);
  });
});

describe("logs of privacy requests", () => {
  it("record privacy_request_received with the reference and type, never the email or phone", async () => {
    const form = await openForm();
    const response = await request(t.app)
      .post("/api/privacy-requests")
      .set({ Cookie: form.cookie, "X-CSRF-Token": form.csrf, "Sec-GPC": "1" })
      .send({ submissionId: newSubmissionId(), requestType: "access", email: "secret.person@example.com", phone: "415-555-0199" });
    const event = t.events("privacy_request_received").find((line) => line.reference === response.body.reference);
    expect(event).toMatchObject({ requestType: "access", gpc: true });
    expect(t.rawLogs()).not.toContain("secret.person");
    expect(t.rawLogs()).not.toContain("555-0199");
    expect(t.rawLogs()).not.toContain("5550199");
  });
});

describe("rate limiting", () => {
  it("allows PRIVACY_RATE_LIMIT submissions per client per 10 minutes, then answers 429 (page or JSON)", async () => {
    const limited = await createTestApp({ PRIVACY_RATE_LIMIT: "3" });
    try {
      const page = await request(limited.app).get("/do-not-sell");
      const cookie = String(page.headers["set-cookie"]).split(";")[0]!;
      const csrf = parse(page.text).querySelector('input[name="_csrf"]')!.getAttribute("value")!;
      const statuses: number[] = [];
      for (let index = 0; index < 3; index += 1) {
        const response = await request(limited.app).post("/api/privacy-requests").set({ Cookie: cookie, "X-CSRF-Token": csrf }).send({ requestType: "access" });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([400, 400, 400]);
      const api = await request(limited.app).post("/api/privacy-requests").set({ Cookie: cookie, "X-CSRF-Token": csrf }).send({ requestType: "access" });
      expect(api.status).toBe(429);
      expect(api.body).toEqual({ status: "error", error: expect.stringMatching(/Too many requests/) });
      expect(api.headers["ratelimit-policy"]).toMatch(/\bq=3\b.*\bw=600\b/);
      expect(api.headers["ratelimit"]).toMatch(/\br=0\b/);
      const form = await request(limited.app).post("/do-not-sell").set("Cookie", cookie).type("form").send({ _csrf: csrf });
      expect(form.status).toBe(429);
      expect(form.text).toContain("Too many requests");
      expect(limited.events("privacy_request_rate_limited").length).toBe(2);
    } finally {
      await limited.services.close();
    }
  });
});
