/**
 * ZIP code → city, state and time zone (server/zip-codes.ts), offline from the `zipcodes` and
 * `@photostructure/tz-lookup` packages: what the quote form shows beside the ZIP, what every
 * stored lead carries, and the time zone of its calling rules.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createZipDirectory, type ZipDirectory } from "../../server/zip-codes";

let zips: ZipDirectory;
beforeAll(() => {
  zips = createZipDirectory();
});

describe("createZipDirectory().lookup", () => {
  it("finds the city, state and time zone of a known ZIP, and nothing else about it", () => {
    expect(zips.lookup("90210")).toEqual({ zip: "90210", city: "Beverly Hills", state: "CA", timeZone: "America/Los_Angeles" });
    expect(zips.lookup("10001")).toEqual({ zip: "10001", city: "New York", state: "NY", timeZone: "America/New_York" });
  });

  it("puts each side of a state's time zone line in its own zone", () => {
    const zones = Object.fromEntries(["32801", "32501", "75201", "79901", "37402", "37203", "83702", "83814", "46204", "46320", "99501", "99546", "85001"].map((zip) => [zip, zips.lookup(zip)?.timeZone]));
    expect(zones).toEqual({
      "32801": "America/New_York", // Orlando
      "32501": "America/Chicago", // Pensacola, the Florida panhandle
      "75201": "America/Chicago", // Dallas
      "79901": "America/Denver", // El Paso
      "37402": "America/New_York", // Chattanooga
      "37203": "America/Chicago", // Nashville
      "83702": "America/Boise", // Boise
      "83814": "America/Los_Angeles", // Coeur d'Alene, the Idaho panhandle
      "46204": "America/Indiana/Indianapolis",
      "46320": "America/Chicago", // Hammond, Indiana
      "99501": "America/Anchorage",
      "99546": "America/Adak",
      "85001": "America/Phoenix", // no daylight saving time
    });
  });

  it("keeps leading zeros (00501, the lowest ZIP in use)", () => {
    expect(zips.lookup("00501")).toEqual({ zip: "00501", city: "Holtsville", state: "NY", timeZone: "America/New_York" });
  });

  it("knows Puerto Rico, the District of Columbia, other territories and military post offices", () => {
    expect(zips.lookup("00601")).toMatchObject({ zip: "00601", city: "Adjuntas", state: "PR", timeZone: "America/Puerto_Rico" });
    expect(zips.lookup("00901")).toMatchObject({ zip: "00901", city: "San Juan", state: "PR" });
    expect(zips.lookup("20001")).toMatchObject({ zip: "20001", city: "Washington", state: "DC", timeZone: "America/New_York" });
    expect(zips.lookup("20500")).toMatchObject({ zip: "20500", city: "Washington", state: "DC" });
    expect(zips.lookup("96910")).toMatchObject({ state: "GU" });
    expect(zips.lookup("09001")).toMatchObject({ state: "AE" });
  });

  it("finds nothing for a well-formed ZIP that does not exist", () => {
    for (const zip of ["00000", "99999", "00100"]) expect(zips.lookup(zip), zip).toBeUndefined();
  });

  it("finds nothing for Canadian postal codes, which the package also holds", () => {
    for (const code of ["K1A 0B1", "K1A0B1", "K1A", "M5V", "H0H 0H0", "m5v"]) expect(zips.lookup(code), code).toBeUndefined();
  });

  it("finds nothing for what is not exactly five digits", () => {
    for (const zip of ["", "9021", "902100", "90210-1234", "902101234", " 90210", "90210 ", "9021O", "９０２１０", "90 210"]) {
      expect(zips.lookup(zip), JSON.stringify(zip)).toBeUndefined();
    }
  });

  it("answers, for every five-digit string, either nothing or the ZIP itself with a city, a two-letter state and a time zone", () => {
    let known = 0;
    for (let n = 0; n < 100_000; n += 1) {
      const zip = String(n).padStart(5, "0");
      const place = zips.lookup(zip);
      if (place === undefined) continue;
      known += 1;
      if (place.zip !== zip || !/^[A-Z]{2}$/.test(place.state) || place.city.trim() === "" || !/^[A-Z][A-Za-z_]+\/[A-Za-z0-9_/+-]+$/.test(place.timeZone)) {
        expect.fail(`${zip} → ${JSON.stringify(place)}`);
      }
    }
    // About 42,000 US ZIP codes (docs in server/zip-codes.ts): the data is there, not an empty stub.
    expect(known).toBeGreaterThan(40_000);
    expect(known).toBeLessThan(45_000);
  });
});
