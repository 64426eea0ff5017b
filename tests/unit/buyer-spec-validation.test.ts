/**
 * A spec is checked when it is saved or imported (issue 43, items 2–4): each problem is named at
 * the place of the bad rule, so the console can put it beside the field and an import can list
 * it. The three examples pass.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { factCatalog, parseSpec, specCredentialNames, type RequestSpecInput, type Stage } from "../../server/delivery/spec";
import { ACME_POST, BOLT_POST, COBALT_PING, COBALT_POST } from "./buyer-spec-examples";

const ANSWER = { body: "json", rules: [{ status: 200, outcome: "accepted" }] } as const;
const PING_ANSWER = { body: "json", rules: [{ status: 200, path: "bid", outcome: "bid", price: { path: "bid" } }] } as const;

/** A JSON spec with these fields (and the answer rules given), as written. */
function withFields(fields: unknown[], extra: Record<string, unknown> = {}): unknown {
  return { format: "json", fields, answer: ANSWER, ...extra };
}

/** The problems, as { path: message }. */
function problems(raw: unknown, stage: Stage = "post"): Record<string, string> {
  const parsed = parseSpec(raw, stage);
  if (parsed.ok) return {};
  return Object.fromEntries(parsed.problems.map((problem) => [problem.path, problem.message]));
}

describe("the example specs", () => {
  it.each([
    ["Acme's post", ACME_POST, "post"],
    ["Bolt's post", BOLT_POST, "post"],
    ["Cobalt's ping", COBALT_PING, "ping"],
    ["Cobalt's post", COBALT_POST, "post"],
  ] as const)("%s is valid", (_name, spec, stage) => {
    expect(problems(spec, stage)).toEqual({});
  });

  it("a quoteridge spec is today's signed JSON, for a post or a ping", () => {
    expect(parseSpec({ format: "quoteridge" }, "post")).toEqual({ ok: true, spec: { format: "quoteridge" } });
    expect(parseSpec({ format: "quoteridge" }, "ping").ok).toBe(true);
  });

  it("fills in the defaults: POST, no headers, no auth, an XML root", () => {
    const parsed = parseSpec({ format: "xml", fields: [{ to: "zip", from: "location.zip" }], answer: ANSWER }, "post");
    expect(parsed.ok && parsed.spec).toMatchObject({ method: "POST", headers: {}, auth: { type: "none" }, xml: { root: "lead", declaration: true } });
  });

  it("names the credentials a spec needs", () => {
    const spec = (raw: RequestSpecInput) => {
      const parsed = parseSpec(raw, "post");
      if (!parsed.ok) throw new Error("refused");
      return parsed.spec;
    };
    expect(specCredentialNames(spec(ACME_POST))).toEqual(["key"]);
    expect(specCredentialNames(spec(BOLT_POST))).toEqual(["token"]);
    expect(specCredentialNames(spec({ format: "quoteridge" }))).toEqual([]);
  });
});

describe("facts", () => {
  it("refuses an unknown fact at its rule's from", () => {
    expect(problems(withFields([{ to: "zip", from: "location.zip" }, { to: "x", from: "lead.favouriteColour" }]))).toEqual({
      "fields.1.from": expect.stringContaining('unknown fact "lead.favouriteColour"') as unknown as string,
    });
  });

  it("says vehicles and drivers are numbered 1 to 4", () => {
    expect(problems(withFields([{ to: "y", from: "vehicle.5.year" }]))["fields.0.from"]).toBe('unknown fact "vehicle.5.year": vehicles are numbered 1 to 4');
    expect(problems(withFields([{ to: "y", from: "driver.1.shoeSize" }]))["fields.0.from"]).toMatch(/^unknown fact "driver.1.shoeSize": a driver's facts are position, firstName/);
  });

  it("refuses an unknown fact inside an each rule at its place", () => {
    expect(Object.keys(problems(withFields([{ to: "vehicles", each: "vehicle", fields: [{ to: "year", from: "year" }, { to: "colour", from: "colour" }] }])))).toEqual(["fields.0.fields.1.from"]);
  });

  it("wants a fact or a constant, not both or neither", () => {
    expect(problems(withFields([{ to: "a", from: "location.zip", value: "x" }, { to: "b" }]))).toEqual({
      "fields.0.value": 'give "from" (a fact) or "value" (a constant), not both',
      "fields.1": 'give "from" (a fact) or "value" (a constant)',
    });
  });

  it("refuses a default together with optional, and transforms on a constant", () => {
    expect(problems(withFields([{ to: "a", from: "source.sid", default: "", optional: true }, { to: "b", value: "x", transforms: [{ type: "string" }] }]))).toEqual({
      "fields.0.optional": 'give "default" or "optional", not both',
      "fields.1.transforms": "a constant is sent as it is: no transforms",
    });
  });

  it("lists every fact with its type, and whether a ping may carry it, for the console", () => {
    const catalog = factCatalog();
    expect(catalog.find((fact) => fact.name === "driver.2.dateOfBirth")).toMatchObject({ type: "date", mask: "date", notInPing: expect.any(String) as unknown as string });
    expect(catalog.find((fact) => fact.name === "drivers.youngestAge")).toMatchObject({ type: "number" });
    expect(catalog.find((fact) => fact.name === "drivers.youngestAge")).not.toHaveProperty("notInPing");
    expect(catalog.every((fact) => !("get" in fact))).toBe(true);
  });
});

describe("value maps and transforms", () => {
  it("refuses a value map that misses a value the fact can take", () => {
    const spec = withFields([{ to: "own", from: "vehicle.1.ownership", transforms: [{ type: "map", values: { own: "Owned", finance: "Financed" } }] }]);
    expect(problems(spec)).toEqual({ "fields.0.transforms.0": 'no mapping for "lease": map it or give "otherwise"' });
  });

  it("takes a partial map with otherwise", () => {
    expect(problems(withFields([{ to: "own", from: "vehicle.1.ownership", transforms: [{ type: "map", values: { own: "Owned" }, otherwise: "Other" }] }]))).toEqual({});
  });

  it("wants otherwise on a map of a fact that can be anything", () => {
    expect(problems(withFields([{ to: "make", from: "vehicle.1.make", transforms: [{ type: "map", values: { Toyota: "TOY" } }] }]))["fields.0.transforms.0"]).toBe(
      'this value can be anything: give "otherwise" for the values not listed',
    );
  });

  it("refuses a map key the fact never takes", () => {
    expect(problems(withFields([{ to: "own", from: "vehicle.1.ownership", transforms: [{ type: "map", values: { own: "O", finance: "F", lease: "L", rent: "R" } }] }]))["fields.0.transforms.0"]).toBe(
      '"rent" is not a value this can take (own, finance, lease)',
    );
  });

  it("checks a map of a yes/no fact against true and false, and of a count against 0 to 3", () => {
    expect(problems(withFields([{ to: "i", from: "insurance.insured", transforms: [{ type: "map", values: { true: "Yes" } }] }]))["fields.0.transforms.0"]).toBe('no mapping for "false": map it or give "otherwise"');
    expect(problems(withFields([{ to: "a", from: "driver.1.accidents", transforms: [{ type: "map", values: { "0": "none", "1": "one", "2": "two" } }] }]))["fields.0.transforms.0"]).toBe(
      'no mapping for "3": map it or give "otherwise"',
    );
  });

  it("checks a map after a boolean spelling against the spelling's values", () => {
    expect(problems(withFields([{ to: "i", from: "insurance.insured", transforms: [{ type: "boolean", as: "Y/N" }, { type: "map", values: { Y: "yes", N: "no" } }] }]))).toEqual({});
  });

  it("refuses a date format on a name, a phone format on a ZIP and a time format on a date", () => {
    expect(
      problems(
        withFields([
          { to: "a", from: "contact.firstName", transforms: [{ type: "date", format: "MM/DD/YYYY" }] },
          { to: "b", from: "location.zip", transforms: [{ type: "phone", format: "10digits" }] },
          { to: "c", from: "driver.1.dateOfBirth", transforms: [{ type: "date", format: "unix" }] },
          { to: "d", from: "location.zip", transforms: [{ type: "boolean", as: "Y/N" }] },
        ]),
      ),
    ).toEqual({
      "fields.0.transforms.0": "a date format needs a date or a time, not a string",
      "fields.1.transforms.0": "a phone format needs a phone number, not a string",
      "fields.2.transforms.0": '"unix" needs a time: this is a date',
      "fields.3.transforms.0": "a boolean spelling needs a yes/no fact, not a string",
    });
  });

  it("refuses an unknown transform or format with zod's message at its place", () => {
    expect(Object.keys(problems(withFields([{ to: "a", from: "driver.1.dateOfBirth", transforms: [{ type: "date", format: "DD.MM.YY" }] }])))).toEqual(["fields.0.transforms.0.format"]);
    expect(Object.keys(problems(withFields([{ to: "a", from: "location.zip", transforms: [{ type: "uppercase" }] }])))).toEqual(["fields.0.transforms.0.type"]);
  });
});

describe("paths", () => {
  it("refuses a malformed JSON path", () => {
    expect(problems(withFields([{ to: "contact..first", from: "contact.firstName" }]))).toEqual({ "fields.0.to": '"contact..first" has an empty step: write names separated by single "."' });
    expect(problems(withFields([{ to: "contact.first name", from: "contact.firstName" }]))["fields.0.to"]).toMatch(/^"first name" in "contact.first name" is not a JSON key/);
  });

  it("refuses __proto__, which would set an object's prototype rather than a key", () => {
    expect(problems(withFields([{ to: "a.__proto__.b", from: "location.zip" }]))).toEqual({ "fields.0.to": '"__proto__" cannot be written' });
  });

  it("refuses a malformed XML element path and form field name", () => {
    const xml = { format: "xml", fields: [{ to: "contact/1st", from: "contact.firstName" }], answer: ANSWER };
    expect(problems(xml)["fields.0.to"]).toMatch(/^"1st" in "contact\/1st" is not an XML element name/);
    const form = { format: "form", fields: [{ to: "First Name", from: "contact.firstName" }], answer: ANSWER };
    expect(problems(form)["fields.0.to"]).toMatch(/^"First Name" is not a form field name/);
  });

  it("refuses two rules writing the same place, or one writing inside the other's value", () => {
    expect(problems(withFields([{ to: "contact", from: "location.zip" }, { to: "contact.first", from: "contact.firstName" }, { to: "zip", from: "location.zip" }, { to: "zip", value: "1" }]))).toEqual({
      "fields.1.to": "contact → first is inside a value another rule writes",
      "fields.3.to": "zip is written by another rule too",
    });
  });

  it("refuses a form field written twice by an each rule and another rule", () => {
    const form = { format: "form", fields: [{ to: "V1_Year", from: "vehicle.1.year" }, { to: "V{n}_", each: "vehicle", fields: [{ to: "Year", from: "year" }] }], answer: ANSWER };
    expect(problems(form)).toEqual({ "fields.1.fields.0.to": "V1_Year is written by another rule too" });
  });

  it("wants {n} in a form each rule's prefix and a list element in an XML one", () => {
    expect(problems({ format: "form", fields: [{ to: "V_", each: "vehicle", fields: [{ to: "Year", from: "year" }] }], answer: ANSWER })["fields.0.to"]).toMatch(/needs \{n\}/);
    expect(problems({ format: "xml", fields: [{ to: "vehicles", each: "vehicle", fields: [{ to: "year", from: "year" }] }], answer: ANSWER })["fields.0.to"]).toMatch(/like "vehicles\/vehicle"/);
  });

  it("refuses fields of their own on an each rule, and fields without each", () => {
    expect(problems(withFields([{ to: "vehicles", each: "vehicle", from: "vehicle.1.year", fields: [{ to: "y", from: "year" }] }, { to: "x", from: "location.zip", fields: [{ to: "y", from: "year" }] }]))).toEqual({
      "fields.0.from": 'an each rule lists its fields: no "from" of its own',
      "fields.1.fields": 'fields are for an each rule: add "each": "vehicle" or "driver"',
    });
  });
});

describe("pings carry no contact details", () => {
  const ping = (fields: unknown[]) => ({ format: "json", fields, answer: PING_ANSWER });

  it("refuses a name, phone, email or street in a ping", () => {
    const found = problems(
      ping([
        { to: "a", from: "contact.firstName" },
        { to: "b", from: "contact.phone" },
        { to: "c", from: "contact.email" },
        { to: "d", from: "contact.street" },
      ]),
      "ping",
    );
    expect(Object.keys(found)).toEqual(["fields.0.from", "fields.1.from", "fields.2.from", "fields.3.from"]);
    expect(found["fields.0.from"]).toBe("contact.firstName: a ping carries no contact details (issue 16): the buyer gets them with the post");
  });

  it("refuses a date of birth, a VIN, the IP and the click id, and a driver's name in an each rule", () => {
    const found = problems(
      ping([
        { to: "a", from: "driver.2.dateOfBirth" },
        { to: "b", from: "vehicle.1.vin" },
        { to: "c", from: "consent.ip" },
        { to: "d", from: "click.tid" },
        { to: "drivers", each: "driver", fields: [{ to: "age", from: "age" }, { to: "name", from: "firstName" }] },
      ]),
      "ping",
    );
    expect(Object.keys(found)).toEqual(["fields.0.from", "fields.1.from", "fields.2.from", "fields.3.from", "fields.4.fields.1.from"]);
    expect(found["fields.0.from"]).toMatch(/send the age/);
  });

  it("refuses the post's facts in a ping and the ping's in a post", () => {
    expect(problems(ping([{ to: "a", from: "auction.bidId" }, { to: "b", from: "lead.reference" }]), "ping")).toEqual({
      "fields.0.from": "auction.bidId is known only when posting",
      "fields.1.from": "lead.reference: a ping names the lead by its ping id (ping.id); the reference goes with the post",
    });
    expect(problems(withFields([{ to: "a", from: "ping.id" }]))).toEqual({ "fields.0.from": "ping.id is known only in a ping" });
  });

  it("refuses Cobalt's post as a ping", () => {
    expect(Object.keys(problems(COBALT_POST, "ping"))).toEqual(expect.arrayContaining(["fields.0.from", "fields.1.from", "fields.6.from", "answer.rules.0.outcome"]));
  });

  it("takes ages, counts, the household's facts and the certificate link in a ping", () => {
    expect(problems(ping([{ to: "a", from: "driver.1.age" }, { to: "b", from: "count.vehicles" }, { to: "c", from: "home.owner" }, { to: "d", from: "consent.certificateUrl" }, { to: "e", from: "ping.id" }]), "ping")).toEqual({});
  });
});

describe("answer rules", () => {
  const answer = (rules: unknown[], body = "json") => withFields([{ to: "zip", from: "location.zip" }], { answer: { body, rules } });

  it("refuses a ping's outcomes in a post's rules, and a post's in a ping's", () => {
    expect(problems(answer([{ status: 200, outcome: "bid", price: { path: "p" } }]))).toEqual({ "answer.rules.0.outcome": "a post's answer is accepted, refused, retry, not bid" });
    expect(problems({ format: "json", fields: [{ to: "zip", from: "location.zip" }], answer: ANSWER }, "ping")).toEqual({ "answer.rules.0.outcome": "a ping's answer is bid, no_bid, not accepted" });
  });

  it("refuses a regular expression that could take exponential time, or that does not compile", () => {
    expect(problems(answer([{ pattern: "^(a+)+$", outcome: "accepted" }], "text"))["answer.rules.0.pattern"]).toMatch(/^could take exponential time/);
    expect(problems(answer([{ pattern: "([a-z]", outcome: "accepted" }], "text"))["answer.rules.0.pattern"]).toMatch(/^not a regular expression/);
    expect(Object.keys(problems(answer([{ pattern: "a".repeat(201), outcome: "accepted" }], "text")))).toEqual(["answer.rules.0.pattern"]);
  });

  it("wants a test in every rule, a path for equals, and one test of the value", () => {
    expect(problems(answer([{ outcome: "accepted" }, { equals: "ok", outcome: "accepted" }, { path: "s", equals: "ok", pattern: "ok", outcome: "accepted" }]))).toEqual({
      "answer.rules.0": "a rule needs a test: status, path or pattern",
      "answer.rules.1": "a rule needs a test: status, path or pattern",
      "answer.rules.1.equals": 'equals tests the value at a path: give "path"',
      "answer.rules.2.pattern": "one test of the value per rule: equals and pattern together",
    });
  });

  it("refuses a path in a text answer and a malformed XML path", () => {
    expect(problems(answer([{ path: "status", outcome: "accepted" }], "text"))).toEqual({ "answer.rules.0.path": 'a text answer has no paths: use "pattern"' });
    expect(problems(answer([{ path: "response//status", outcome: "accepted" }], "xml"))["answer.rules.0.path"]).toMatch(/empty step/);
  });

  it("wants a bid's price, takes values only for their outcomes, and groups only of a pattern", () => {
    const ping = { format: "json", fields: [{ to: "zip", from: "location.zip" }], answer: { body: "json", rules: [{ status: 200, outcome: "bid" }] } };
    expect(problems(ping, "ping")).toEqual({ "answer.rules.0.price": 'a bid needs its price: { "path": … } or { "group": … }' });
    expect(
      problems(
        answer([
          { status: 200, outcome: "retry", price: { path: "p" } },
          { status: 201, outcome: "accepted", price: { group: 1 } },
          { status: 202, pattern: "id=(\\d+)", outcome: "accepted", leadId: { group: 2 } },
          { status: 203, outcome: "accepted", price: { value: "12" } },
          { status: 204, outcome: "refused", reason: { path: "a", value: "b" } },
        ]),
      ),
    ).toEqual({
      "answer.rules.0.price": "a retry answer has no price",
      "answer.rules.1.price.group": 'a group is of the rule\'s pattern: give "pattern"',
      "answer.rules.2.leadId.group": "the pattern has 1 capture group",
      "answer.rules.3.price.value": "a constant is for a reason only: read the price from the answer",
      "answer.rules.4.reason": "give one of path, group or value",
    });
  });
});

describe("the request's own settings", () => {
  it("refuses GET for a JSON body", () => {
    expect(problems(withFields([{ to: "zip", from: "location.zip" }], { method: "GET" }))).toEqual({ method: "GET sends the fields in the address: only for format form" });
  });

  it("keeps credentials out of constant headers", () => {
    expect(problems(withFields([{ to: "zip", from: "location.zip" }], { headers: { Authorization: "Bearer abc" } }))).toEqual({
      "headers.Authorization": 'Authorization: credentials go in "auth", kept apart from the spec',
    });
    expect(problems(withFields([{ to: "zip", from: "location.zip" }], { auth: { type: "header", name: "X-Api-Key", credential: "k" }, headers: { "x-api-key": "abc" } }))).toEqual({
      "headers.x-api-key": 'x-api-key carries the credential ("auth")',
    });
  });

  it("refuses a secret written into the spec's auth, and an unknown format", () => {
    expect(Object.keys(problems(withFields([{ to: "zip", from: "location.zip" }], { auth: { type: "bearer", token: "abc" } })))).toEqual(expect.arrayContaining(["auth.credential"]));
    expect(problems({ format: "soap" })).toEqual({ format: 'format: one of "quoteridge", "json", "form", "xml"' });
  });

  it("marks a test lead one way, at a path of its format that no field uses", () => {
    expect(problems(withFields([{ to: "zip", from: "location.zip" }], { test: { to: "t", header: "X-Test", value: 1 } }))).toEqual({ test: 'mark a test lead with one of "to" (a field), "header" or "query"' });
    expect(problems(withFields([{ to: "zip", from: "location.zip" }], { test: { to: "zip", value: true } }))).toEqual({ "test.to": "zip is written by another rule too" });
  });
});

describe("any input", () => {
  it("is answered with problems, never an exception", () => {
    const base = { format: "json", fields: [{ to: "zip", from: "location.zip" }], answer: ANSWER };
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        for (const stage of ["post", "ping"] as const) {
          parseSpec(value, stage);
          parseSpec({ ...base, fields: [value] }, stage);
          parseSpec({ ...base, fields: [{ to: "a", from: "driver.1.maritalStatus", transforms: [value] }] }, stage);
          parseSpec({ ...base, answer: { body: "xml", rules: [value] } }, stage);
        }
      }),
      { numRuns: 300 },
    );
  });
});
