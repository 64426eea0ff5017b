/**
 * GET /api/vehicles/{makes,models,vin/:vin}: the vehicle catalog's answers (NHTSA vPIC data in
 * vehicle-data/vpic.json.gz), cacheable for a day with the data's version as ETag, and the API's
 * one envelope for refusals (422 for bad input, 404 for a VIN whose maker is unknown).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import request from "supertest";
import { createTestApp, type TestApp } from "../support/app";
import { vinCheckDigit } from "../../shared/vin";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.services.close();
});

const get = (path: string) => request(t.app).get(path);

function expectCacheable(response: request.Response): void {
  expect(response.headers["cache-control"]).toBe("public, max-age=86400");
  expect(response.headers.etag).toMatch(/^"vpic-2\.0\.1-\d{4}-\d{2}-\d{2}"$/);
}

describe("GET /api/vehicles/makes", () => {
  it("lists the makes of a model year, cacheable, with the data version as ETag", async () => {
    const response = await get("/api/vehicles/makes?year=2020");
    expect(response.status).toBe(200);
    expect(response.body.year).toBe(2020);
    expect(response.body.makes).toEqual(expect.arrayContaining(["Ford", "Honda", "Toyota"]));
    expectCacheable(response);
  });

  it("answers 304 with no body when the ETag is still current", async () => {
    const first = await get("/api/vehicles/makes?year=2020");
    const again = await get("/api/vehicles/makes?year=2020").set("If-None-Match", first.headers.etag as string);
    expect(again.status).toBe(304);
    expect(again.text ?? "").toBe("");
    const stale = await get("/api/vehicles/makes?year=2020").set("If-None-Match", '"vpic-0.0.0-2000-01-01"');
    expect(stale.status).toBe(200);
  });

  it("refuses a missing, non-numeric or out-of-range year with 422 and a helpful message", async () => {
    for (const query of ["", "?year=abc", "?year=20200", "?year=1970", "?year=2999", "?year=2020&year=2021"]) {
      const response = await get(`/api/vehicles/makes${query}`);
      expect(response.status, query).toBe(422);
      expect(response.body).toEqual({ status: "invalid", errors: { year: expect.stringMatching(/model year/) } });
      expect(response.headers["cache-control"]).not.toBe("public, max-age=86400");
    }
  });
});

describe("GET /api/vehicles/models", () => {
  it("lists a make's models for the year, matching the make case-insensitively", async () => {
    const response = await get("/api/vehicles/models?year=2020&make=toyota");
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ year: 2020, make: "Toyota" });
    expect(response.body.models).toEqual(expect.arrayContaining(["Camry", "Corolla", "RAV4"]));
    expectCacheable(response);
  });

  it("refuses an unknown or missing make with 422", async () => {
    const unknown = await get("/api/vehicles/models?year=2020&make=Trabant");
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({ status: "invalid", errors: { make: 'We do not know the make "Trabant".' } });
    const missing = await get("/api/vehicles/models?year=2020");
    expect(missing.status).toBe(422);
    expect(missing.body.errors.make).toBe("Choose a make.");
  });

  it("refuses a known make with no models that year with 422", async () => {
    const response = await get("/api/vehicles/models?year=1981&make=Tesla");
    expect(response.status).toBe(422);
    expect(response.body.errors.make).toBe("We have no Tesla models for 1981.");
  });
});

describe("GET /api/vehicles/vin/:vin", () => {
  it("decodes a VIN offline: year, make and model, cacheable", async () => {
    const response = await get("/api/vehicles/vin/4t1b11hk6lu123456");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ vin: "4T1B11HK6LU123456", year: 2020, make: "Toyota", model: "Camry" });
    expectCacheable(response);
  });

  it("answers year and make with a null model when no model pattern matches", async () => {
    const raw = "4T1ZZZZZ0LU123456";
    const vin = raw.slice(0, 8) + vinCheckDigit(raw) + raw.slice(9);
    const response = await get(`/api/vehicles/vin/${vin}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ vin, year: 2020, make: "Toyota", model: null });
  });

  it("refuses a malformed VIN or a wrong check digit with 422", async () => {
    const short = await get("/api/vehicles/vin/4T1B11HK6LU12345");
    expect(short.status).toBe(422);
    expect(short.body.errors.vin).toMatch(/17 characters/);
    const typo = await get("/api/vehicles/vin/4T1B11HK5LU123456");
    expect(typo.status).toBe(422);
    expect(typo.body.errors.vin).toMatch(/check digit/);
  });

  it("answers 404 with the envelope when the maker of the VIN is unknown", async () => {
    const raw = "ZZZB11HK0LU123456";
    const vin = raw.slice(0, 8) + vinCheckDigit(raw) + raw.slice(9);
    const response = await get(`/api/vehicles/vin/${vin}`);
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ status: "error", error: expect.stringContaining("ZZZ"), year: 2020 });
  });
});
