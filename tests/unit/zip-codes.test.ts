/**
 * ZIP code → city and state (server/zip-codes.ts), offline from the `zipcodes` package: what the
 * quote form shows beside the ZIP and what every stored lead carries.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createZipDirectory, type ZipDirectory } from "../../server/zip-codes";

let zips: ZipDirectory;
beforeAll(() => {
  zips = createZipDirectory();
});

describe("createZipDirectory().lookup", () => {
  it("finds the city and state of a known ZIP, and nothing else about it", () => {
    expect(zips.lookup("90210")).toEqual({ zip: "90210", city: "Beverly Hills", state: "CA" });
    expect(zips.lookup("10001")).toEqual({ zip: "10001", city: "New York", state: "NY" });
  });

  it("keeps leading zeros (00501, the lowest ZIP in use)", () => {
    expect(zips.lookup("00501")).toEqual({ zip: "00501", city: "Holtsville", state: "NY" });
  });

  it("knows Puerto Rico, the District of Columbia, other territories and military post offices", () => {
    expect(zips.lookup("00601")).toEqual({ zip: "00601", city: "Adjuntas", state: "PR" });
    expect(zips.lookup("00901")).toEqual({ zip: "00901", city: "San Juan", state: "PR" });
    expect(zips.lookup("20001")).toEqual({ zip: "20001", city: "Washington", state: "DC" });
    expect(zips.lookup("20500")).toEqual({ zip: "20500", city: "Washington", state: "DC" });
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

  it("answers, for every five-digit string, either nothing or the ZIP itself with a city and a two-letter state", () => {
    let known = 0;
    for (let n = 0; n < 100_000; n += 1) {
      const zip = String(n).padStart(5, "0");
      const place = zips.lookup(zip);
      if (place === undefined) continue;
      known += 1;
      if (place.zip !== zip || !/^[A-Z]{2}$/.test(place.state) || place.city.trim() === "") {
        expect.fail(`${zip} → ${JSON.stringify(place)}`);
      }
    }
    // About 42,000 US ZIP codes (docs in server/zip-codes.ts): the data is there, not an empty stub.
    expect(known).toBeGreaterThan(40_000);
    expect(known).toBeLessThan(45_000);
  });
});
