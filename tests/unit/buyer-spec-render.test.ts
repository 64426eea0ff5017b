/**
 * Rendering a lead into each example buyer's request (issue 43): exactly what the issue says
 * each buyer receives, the masked copy, test marks, and leads that lack a value.
 */
import { describe, expect, it } from "vitest";
import { compileSpec, parseSpec, type CompiledHttpSpec, type RenderInput, type RequestSpecInput, type Stage } from "../../server/delivery/spec";
import { ACME_POST, BOLT_POST, COBALT_PING, COBALT_POST, EXAMPLE_CONSENT_TEXT, EXAMPLE_CREDENTIALS, EXAMPLE_URLS, exampleInput, exampleLead } from "./buyer-spec-examples";
import { SAMPLE_ANSWERS } from "../../tools/lead-session";

function compiled(raw: RequestSpecInput, stage: Stage = "post"): CompiledHttpSpec {
  const parsed = parseSpec(raw, stage);
  if (!parsed.ok) throw new Error(`spec refused: ${JSON.stringify(parsed.problems)}`);
  const spec = compileSpec(parsed.spec);
  if (spec.format === "quoteridge") throw new Error("expected an HTTP spec");
  return spec;
}

function rendered(raw: RequestSpecInput, input: RenderInput, target: { url: string; credentials: Record<string, string> }, stage: Stage = "post") {
  const result = compiled(raw, stage).render(input, target);
  if (!result.ok) throw new Error(`not rendered: ${JSON.stringify(result)}`);
  return result;
}

const acme = (input: RenderInput = exampleInput()) => rendered(ACME_POST, input, { url: EXAMPLE_URLS.acme, credentials: EXAMPLE_CREDENTIALS.acme });
const bolt = (input: RenderInput = exampleInput()) => rendered(BOLT_POST, input, { url: EXAMPLE_URLS.bolt, credentials: EXAMPLE_CREDENTIALS.bolt });
const cobaltPing = (input: RenderInput = exampleInput({ pingId: "p_1" })) => rendered(COBALT_PING, input, { url: EXAMPLE_URLS.cobaltPing, credentials: EXAMPLE_CREDENTIALS.cobalt }, "ping");
const cobaltPost = (input: RenderInput = exampleInput({ auction: { bidId: "CP-9", saleType: "exclusive" } })) =>
  rendered(COBALT_POST, input, { url: EXAMPLE_URLS.cobaltPost, credentials: EXAMPLE_CREDENTIALS.cobalt });

/** A form value as application/x-www-form-urlencoded writes it (spaces as +). */
const formValue = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);

describe("Acme Auto Agents (form post, key in the query)", () => {
  it("posts the issue's fields, in order, to the URL with ?key=", () => {
    const { request } = acme();
    expect(request.method).toBe("POST");
    expect(request.url).toBe("http://127.0.0.1:4010/acme/leads?key=acme-test-key-123");
    expect(request.headers).toEqual({ "content-type": "application/x-www-form-urlencoded" });
    expect(request.contentType).toBe("application/x-www-form-urlencoded");
    expect(request.body).toBe(
      "FirstName=Ana&LastName=O%27Brien&Email=ana.obrien%40example.com&Phone=4155550134&Address=123+Main+St+Apt+4" +
        "&City=Beverly+Hills&State=CA&Zip=90210&DOB=04%2F15%2F1990&Married=Y&V1_Year=2019&V1_Make=Toyota&V1_Model=Camry" +
        "&V1_Ownership=Owned&Vehicles=2&Drivers=2&Insured=Y&CurrentCarrier=GEICO&Homeowner=Y&Accidents=0" +
        `&TCPA_Text=${formValue(EXAMPLE_CONSENT_TEXT)}&LeadID=LD-7K3M-Q9XD&SubID=a1`,
    );
  });

  it("sends N, None and an empty SubID for an uninsured renter without a source, single, with a financed car", () => {
    const [car, ...cars] = exampleLead().vehicles;
    const [ana, ...others] = exampleLead().drivers;
    const lead = exampleLead({
      currentlyInsured: false,
      currentInsurer: null,
      insuredFor: null,
      residence: "rent",
      sid: null,
      vehicles: [{ ...car!, ownership: "lease" }, ...cars],
      drivers: [{ ...ana!, maritalStatus: "divorced", accidents: 2 }, ...others],
    });
    const fields = new URLSearchParams(acme(exampleInput({ lead })).request.body!);
    expect(Object.fromEntries(["Married", "V1_Ownership", "Insured", "CurrentCarrier", "Homeowner", "Accidents", "SubID"].map((name) => [name, fields.get(name)]))).toEqual({
      Married: "N",
      V1_Ownership: "Leased",
      Insured: "N",
      CurrentCarrier: "None",
      Homeowner: "N",
      Accidents: "2",
      SubID: "",
    });
  });

  it("says Y for a domestic partner", () => {
    const [ana, ...others] = exampleLead().drivers;
    const lead = exampleLead({ drivers: [{ ...ana!, maritalStatus: "partner" }, ...others] });
    expect(new URLSearchParams(acme(exampleInput({ lead })).request.body!).get("Married")).toBe("Y");
  });

  it("masks the key and the contact in the copy it keeps, and nothing else", () => {
    const { masked, request } = acme();
    expect(masked.url).toBe("http://127.0.0.1:4010/acme/leads?key=***");
    const shown = new URLSearchParams(masked.body!);
    expect(Object.fromEntries(["FirstName", "LastName", "Email", "Phone", "Address", "DOB", "Zip", "V1_Make"].map((name) => [name, shown.get(name)]))).toEqual({
      FirstName: "A***",
      LastName: "O***",
      Email: "a***@example.com",
      Phone: "415*****34",
      Address: "***",
      DOB: "**/**/1990",
      Zip: "90210",
      V1_Make: "Toyota",
    });
    expect([...shown.keys()]).toEqual([...new URLSearchParams(request.body!).keys()]);
    expect(masked.body).not.toContain("acme-test-key-123");
  });

  it("marks a test lead with its own field, and only a test lead", () => {
    expect(acme(exampleInput({ test: true })).request.body).toMatch(/&SubID=a1&TestLead=1$/);
    expect(acme().request.body).not.toContain("TestLead");
  });
});

describe("Bolt Insurance Direct (JSON, bearer token)", () => {
  const expected = {
    source: "quoteridge",
    external_id: "LD-7K3M-Q9XD",
    contact: { first: "Ana", last: "O'Brien", email: "ana.obrien@example.com", phone: "+14155550134", street: "123 Main St Apt 4", city: "Beverly Hills", state: "CA", zip: "90210" },
    applicant: { birth_date: "1990-04-15", marital: "married", years_licensed: 20 },
    vehicles: [
      { year: 2019, make: "Toyota", model: "Camry", vin: null },
      { year: 2003, make: "Honda", model: "Accord", vin: "1HGCM82633A004352" },
    ],
    current_policy: { insured: true, carrier: "GEICO" },
    consent: { text: EXAMPLE_CONSENT_TEXT, timestamp: "2026-11-28T14:59:12.000Z", ip: "203.0.113.7" },
  };

  it("posts the issue's JSON, keys in its order, with Authorization: Bearer", () => {
    const { request } = bolt();
    expect(request.url).toBe("http://127.0.0.1:4010/bolt/leads");
    expect(request.headers).toEqual({ "content-type": "application/json", authorization: "Bearer bolt-test-token-456" });
    expect(request.body).toBe(JSON.stringify(expected));
  });

  it("says other for a marital status that is neither married nor single, and null for no carrier", () => {
    const [ana, ...others] = exampleLead().drivers;
    const lead = exampleLead({ drivers: [{ ...ana!, maritalStatus: "widowed" }, ...others], currentlyInsured: false, currentInsurer: null });
    const body = JSON.parse(bolt(exampleInput({ lead })).request.body!) as typeof expected;
    expect(body.applicant.marital).toBe("other");
    expect(body.current_policy).toEqual({ insured: false, carrier: null });
  });

  it("sends every vehicle, up to the four a lead can have", () => {
    const vehicles = [...SAMPLE_ANSWERS.vehicles, ...SAMPLE_ANSWERS.vehicles].map((vehicle, index) => ({ ...vehicle, year: 2010 + index }));
    const body = JSON.parse(bolt(exampleInput({ lead: exampleLead({ vehicles }) })).request.body!) as typeof expected;
    expect(body.vehicles.map((vehicle) => vehicle.year)).toEqual([2010, 2011, 2012, 2013]);
  });

  it("masks the token and the contact, keeping the JSON's shape", () => {
    const { masked } = bolt();
    expect(masked.headers.authorization).toBe("Bearer ***");
    const body = JSON.parse(masked.body!) as typeof expected;
    expect(body.contact).toEqual({ first: "A***", last: "O***", email: "a***@example.com", phone: "+1415*****34", street: "***", city: "Beverly Hills", state: "CA", zip: "90210" });
    expect(body.applicant.birth_date).toBe("1990-**-**");
    expect(body.consent.ip).toBe("203.0.*.*");
    expect(body.vehicles).toEqual(expected.vehicles);
  });

  it("marks a test lead with \"test\": true at the end of the body", () => {
    expect(bolt(exampleInput({ test: true })).request.body).toBe(JSON.stringify({ ...expected, test: true }));
  });
});

describe("Cobalt Exchange (ping/post, X-Api-Key)", () => {
  it("pings with the issue's eight values and no contact details", () => {
    const { request, masked } = cobaltPing();
    expect(request.url).toBe("http://127.0.0.1:4010/cobalt/ping");
    expect(request.headers).toEqual({ "content-type": "application/json", "x-api-key": "cobalt-test-key-789" });
    expect(request.body).toBe(JSON.stringify({ zip: "90210", state: "CA", vehicle_count: 2, driver_count: 2, youngest_driver_age: 36, insured: true, homeowner: true, sr22: false }));
    expect(masked.headers["x-api-key"]).toBe("***");
    expect(masked.body).toBe(request.body);
  });

  it("pings sr22 true when any driver needs one, and the youngest driver's age", () => {
    const [ana, luis] = exampleLead().drivers;
    const lead = exampleLead({ drivers: [ana!, { ...luis!, dateOfBirth: "2008-12-01", sr22: true }] });
    const body = JSON.parse(cobaltPing(exampleInput({ lead })).request.body!) as Record<string, unknown>;
    expect(body).toMatchObject({ youngest_driver_age: 17, sr22: true });
  });

  it("posts to the winner with the bid id its ping's answer gave", () => {
    const { request, masked } = cobaltPost();
    expect(request.url).toBe("http://127.0.0.1:4010/cobalt/post");
    expect(request.headers).toEqual({ "content-type": "application/json", "x-api-key": "cobalt-test-key-789" });
    expect(request.body).toBe(JSON.stringify({ bid_id: "CP-9", first_name: "Ana", last_name: "O'Brien", phone: "4155550134", email: "ana.obrien@example.com", zip: "90210", dob: "04/15/1990" }));
    expect(masked.body).toBe(JSON.stringify({ bid_id: "CP-9", first_name: "A***", last_name: "O***", phone: "415*****34", email: "a***@example.com", zip: "90210", dob: "**/**/1990" }));
  });

  it("marks a test ping and a test post with its header", () => {
    expect(cobaltPing(exampleInput({ test: true })).request.headers["x-test"]).toBe("1");
    expect(cobaltPost(exampleInput({ test: true, auction: { bidId: "CP-9", saleType: "exclusive" } })).request.headers["x-test"]).toBe("1");
    expect(cobaltPing().request.headers["x-test"]).toBeUndefined();
  });

  it("does not post without the bid id, and says which value is missing", () => {
    const result = compiled(COBALT_POST).render(exampleInput(), { url: EXAMPLE_URLS.cobaltPost, credentials: EXAMPLE_CREDENTIALS.cobalt });
    expect(result).toEqual({ ok: false, missing: "auction.bidId", field: "bid_id" });
  });
});

describe("a lead that lacks a value", () => {
  const spec: RequestSpecInput = {
    format: "form",
    fields: [
      { to: "DOB1", from: "driver.1.dateOfBirth" },
      { to: "DOB2", from: "driver.2.dateOfBirth", transforms: [{ type: "date", format: "MM/DD/YYYY" }] },
    ],
    answer: { body: "text", rules: [{ status: 200, outcome: "accepted" }] },
  };
  const oneDriver = exampleInput({ lead: exampleLead({ drivers: exampleLead().drivers.slice(0, 1) }) });
  const target = { url: "http://127.0.0.1:4010/x", credentials: {} };

  it("is not rendered when the value is required, naming the fact and the buyer's field", () => {
    expect(compiled(spec).render(oneDriver, target)).toEqual({ ok: false, missing: "driver.2.dateOfBirth", field: "DOB2" });
  });

  it("leaves an optional field out and sends a default as it is", () => {
    const optional = compiled({ ...spec, fields: [spec.fields[0]!, { ...spec.fields[1]!, optional: true }] }).render(oneDriver, target);
    expect(optional.ok && optional.request.body).toBe("DOB1=1990-04-15");
    const defaulted = compiled({ ...spec, fields: [spec.fields[0]!, { ...spec.fields[1]!, default: "none" }] }).render(oneDriver, target);
    expect(defaulted.ok && defaulted.request.body).toBe("DOB1=1990-04-15&DOB2=none");
  });

  it("names the item of an each rule that lacks a required value", () => {
    const each: RequestSpecInput = {
      format: "json",
      fields: [{ to: "vehicles", each: "vehicle", fields: [{ to: "vin", from: "vin" }] }],
      answer: { body: "json", rules: [{ status: 200, outcome: "accepted" }] },
    };
    expect(compiled(each).render(exampleInput(), target)).toEqual({ ok: false, missing: "vehicle.1.vin", field: "vehicles[0].vin" });
  });

  it("is not rendered when a stored value cannot be transformed, and says why", () => {
    const phone: RequestSpecInput = { ...spec, fields: [{ to: "Phone", from: "contact.phone", transforms: [{ type: "phone", format: "10digits" }] }] };
    expect(compiled(phone).render(exampleInput({ lead: exampleLead({ phone: "+442079460000" }) }), target)).toEqual({
      ok: false,
      missing: "contact.phone",
      field: "Phone",
      why: "not a 10-digit US phone number",
    });
  });

  it("is not rendered without the credential its auth names", () => {
    expect(compiled(ACME_POST).render(exampleInput(), { url: EXAMPLE_URLS.acme, credentials: {} })).toEqual({
      ok: false,
      missing: "credentials.key",
      field: "auth",
      why: 'the buyer has no credential "key"',
    });
  });
});

describe("other formats and methods", () => {
  const target = { url: "https://buyer.example/in?src=qr", credentials: { password: "s3cret" } };

  it("writes XML with the root, nested elements, one element per vehicle, and escaped text", () => {
    const spec: RequestSpecInput = {
      format: "xml",
      xml: { root: "Lead" },
      auth: { type: "basic", username: "quoteridge", credential: "password" },
      fields: [
        { to: "Contact/First", from: "contact.firstName" },
        { to: "Contact/Last", from: "contact.lastName" },
        { to: "Note", value: "Tom & Jerry <3" },
        { to: "Vehicles/Vehicle", each: "vehicle", fields: [{ to: "Year", from: "year" }, { to: "VIN", from: "vin", default: null }, { to: "Use", from: "position" }] },
      ],
      answer: { body: "xml", rules: [{ status: 200, outcome: "accepted" }] },
    };
    const result = compiled(spec).render(exampleInput(), target);
    if (!result.ok) throw new Error("not rendered");
    expect(result.request.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Lead><Contact><First>Ana</First><Last>O&apos;Brien</Last></Contact><Note>Tom &amp; Jerry &lt;3</Note>' +
        "<Vehicles><Vehicle><Year>2019</Year><VIN></VIN><Use>1</Use></Vehicle><Vehicle><Year>2003</Year><VIN>1HGCM82633A004352</VIN><Use>2</Use></Vehicle></Vehicles></Lead>",
    );
    expect(result.request.headers).toEqual({ "content-type": "application/xml", authorization: `Basic ${Buffer.from("quoteridge:s3cret").toString("base64")}` });
    expect(result.masked.headers.authorization).toBe("Basic ***");
    expect(result.masked.body).toContain("<Contact><First>A***</First><Last>O***</Last></Contact>");
  });

  it("drops control characters XML 1.0 cannot carry", () => {
    const spec: RequestSpecInput = { format: "xml", xml: { root: "lead", declaration: false }, fields: [{ to: "ua", from: "consent.userAgent" }], answer: { body: "xml", rules: [{ status: 200, outcome: "accepted" }] } };
    const lead = exampleLead({ consent: { ...exampleLead().consent!, userAgent: "Bot\u0001/1.0\tx" } });
    const result = compiled(spec).render(exampleInput({ lead }), target);
    expect(result.ok && result.request.body).toBe("<lead><ua>Bot/1.0\tx</ua></lead>");
  });

  it("does not take an inherited property for a credential", () => {
    const spec: RequestSpecInput = { ...BOLT_POST, auth: { type: "bearer", credential: "constructor" } };
    expect(compiled(spec).render(exampleInput(), { url: EXAMPLE_URLS.bolt, credentials: {} })).toMatchObject({ ok: false, missing: "credentials.constructor" });
  });

  it("sends a GET form's fields and its key in the query, after the address's own", () => {
    const spec: RequestSpecInput = {
      format: "form",
      method: "GET",
      auth: { type: "query", name: "api_key", credential: "password" },
      fields: [
        { to: "zip", from: "location.zip" },
        { to: "V{n}_", each: "vehicle", max: 1, fields: [{ to: "Year", from: "year" }] },
      ],
      answer: { body: "text", rules: [{ status: 200, outcome: "accepted" }] },
    };
    const result = compiled(spec).render(exampleInput(), target);
    if (!result.ok) throw new Error("not rendered");
    expect(result.request).toEqual({ method: "GET", url: "https://buyer.example/in?src=qr&zip=90210&V1_Year=2019&api_key=s3cret", headers: {}, body: null, contentType: null });
    expect(result.masked.url).toBe("https://buyer.example/in?src=qr&zip=90210&V1_Year=2019&api_key=***");
  });

  it("numbers a form each rule's fields from 1, with the spec's content type and headers", () => {
    const spec: RequestSpecInput = {
      format: "form",
      contentType: "application/x-www-form-urlencoded; charset=utf-8",
      headers: { "X-Source": "quoteridge" },
      fields: [{ to: "D{n}_", each: "driver", fields: [{ to: "Age", from: "age" }, { to: "Years", from: "yearsLicensed" }, { to: "Married", from: "maritalStatus", transforms: [{ type: "map", values: { married: 1 }, otherwise: 0 }] }] }],
      answer: { body: "text", rules: [{ status: 200, outcome: "accepted" }] },
    };
    const result = compiled(spec).render(exampleInput(), target);
    if (!result.ok) throw new Error("not rendered");
    expect(result.request.body).toBe("D1_Age=36&D1_Years=20&D1_Married=1&D2_Age=38&D2_Years=21&D2_Married=1");
    expect(result.request.headers).toEqual({ "content-type": "application/x-www-form-urlencoded; charset=utf-8", "x-source": "quoteridge" });
  });

  it("formats dates, times, phones and booleans as the transforms say", () => {
    const spec: RequestSpecInput = {
      format: "json",
      fields: [
        { to: "a", from: "driver.1.dateOfBirth", transforms: [{ type: "date", format: "M/D/YYYY" }] },
        { to: "b", from: "driver.1.dateOfBirth", transforms: [{ type: "date", format: "YYYYMMDD" }] },
        { to: "c", from: "consent.at", transforms: [{ type: "date", format: "unix" }] },
        { to: "d", from: "consent.at", transforms: [{ type: "date", format: "YYYY-MM-DD HH:mm:ss" }] },
        { to: "e", from: "contact.phone", transforms: [{ type: "phone", format: "parens" }] },
        { to: "f", from: "contact.phone", transforms: [{ type: "phone", format: "dashed" }] },
        { to: "g", from: "insurance.insured", transforms: [{ type: "boolean", as: "1/0" }] },
        { to: "h", from: "drivers.anyDui", transforms: [{ type: "boolean", as: "yes/no" }] },
        { to: "i", from: "vehicle.2.year", transforms: [{ type: "string" }] },
        { to: "j", from: "location.city", transforms: [{ type: "case", to: "upper" }, { type: "truncate", max: 7 }] },
        { to: "k", from: "driver.2.claims", transforms: [{ type: "map", values: { "0": "none", "1": "one" }, otherwise: "many" }] },
        { to: "l", from: "vehicle.1.year", transforms: [{ type: "string" }, { type: "number" }] },
      ],
      answer: { body: "json", rules: [{ status: 200, outcome: "accepted" }] },
    };
    const result = compiled(spec).render(exampleInput(), target);
    if (!result.ok) throw new Error("not rendered");
    expect(JSON.parse(result.request.body!)).toEqual({
      a: "4/15/1990",
      b: "19900415",
      c: 1795877952,
      d: "2026-11-28 14:59:12",
      e: "(415) 555-0134",
      f: "415-555-0134",
      g: 1,
      h: "no",
      i: "2003",
      j: "BEVERLY",
      k: "one",
      l: 2019,
    });
    expect(JSON.parse(result.masked.body!)).toMatchObject({ e: "(415) ***-**34", f: "415-***-**34" });
  });
});
