/**
 * server/vehicles/catalog.ts over the committed vehicle-data/vpic.json.gz (NHTSA vPIC), and over
 * a small hand-made data set for the pattern rules the real data cannot pin one by one.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createVehicleCatalog, loadVehicleCatalog, VEHICLE_DATA_PATH } from "../../server/vehicles/catalog";
import type { VehicleData } from "../../server/vehicles/data-format";
import { OLDEST_VEHICLE_YEAR, VEHICLE_MAKES } from "../../shared/vehicles";
import { vinCheckDigit } from "../../shared/vin";
import { projectRoot } from "../../tools/production-server";

const catalog = loadVehicleCatalog(path.join(projectRoot, VEHICLE_DATA_PATH));
const withCheckDigit = (vin: string) => vin.slice(0, 8) + vinCheckDigit(vin) + vin.slice(9);

describe("the committed vPIC data", () => {
  it("is versioned by its source and date and covers model years from 1981", () => {
    expect(catalog.version).toMatch(/^vpic-2\.0\.1-\d{4}-\d{2}-\d{2}$/);
    const years = catalog.years();
    expect(years.at(-1)).toBe(OLDEST_VEHICLE_YEAR);
    expect(years[0]).toBeGreaterThanOrEqual(2026);
  });

  it("lists only the site's curated makes, in its spelling, alphabetically", () => {
    const makes = catalog.makes(2020);
    expect(makes).toEqual(expect.arrayContaining(["BMW", "Ford", "Honda", "Mercedes-Benz", "Toyota", "Tesla"]));
    for (const make of makes) expect(VEHICLE_MAKES).toContain(make);
    expect(makes).toEqual([...makes].sort((a, b) => a.localeCompare(b)));
    expect(catalog.makes(1981)).toContain("Pontiac");
    expect(catalog.makes(1970)).toEqual([]);
  });

  it("lists a make's models for a year, sorted and unique, and keeps sister makes' models out", () => {
    const toyota = catalog.models(2020, "Toyota") ?? [];
    expect(toyota).toEqual(expect.arrayContaining(["Camry", "Corolla", "RAV4", "Tacoma", "Highlander"]));
    // Toyota's VIN schemas also list the Subaru BRZ and WRX; Make_Model keeps them with Subaru.
    expect(toyota).not.toContain("BRZ");
    expect(toyota).not.toContain("WRX");
    expect(catalog.models(2020, "Subaru")).toEqual(expect.arrayContaining(["BRZ", "WRX"]));
    expect(new Set(toyota).size).toBe(toyota.length);
    expect(toyota).toEqual([...toyota].sort((a, b) => a.localeCompare(b, "en", { numeric: true })));
    expect(catalog.models(2018, "Ford")).toContain("F-150");
    expect(catalog.models(2021, "Honda")).toEqual(expect.arrayContaining(["Accord", "Civic", "CR-V"]));
  });

  it("matches makes case-insensitively and knows nothing of other makes", () => {
    expect(catalog.models(2020, "toyota")).toEqual(catalog.models(2020, "Toyota"));
    expect(catalog.makeNamed(" mercedes-benz ")).toBe("Mercedes-Benz");
    expect(catalog.makeNamed("Trabant")).toBeUndefined();
    expect(catalog.models(2020, "Trabant")).toBeUndefined();
  });

  it("decodes real VINs offline: year, make and model", () => {
    const cases: [string, number, string, string][] = [
      ["4T1B11HK6LU123456", 2020, "Toyota", "Camry"],
      ["1FTEW1EP4JF123456", 2018, "Ford", "F-150"],
      ["2HGFC2F64MH123456", 2021, "Honda", "Civic"],
      ["1HGCM82633A004352", 2003, "Honda", "Accord"],
      ["5YJ3E1EA2KF317000", 2019, "Tesla", "Model 3"],
      ["1G1ZD5ST8LF000001", 2020, "Chevrolet", "Malibu"],
      ["JM1BPAAL7M1000001", 2021, "Mazda", "Mazda3"],
      ["1C4RJFAG8FC000001", 2015, "Jeep", "Grand Cherokee"],
    ];
    for (const [vin, year, make, model] of cases) {
      expect(catalog.decodeVin(vin.toLowerCase())).toEqual({ status: "decoded", vin, year, make, model });
    }
  });

  it("gives year and make when no model pattern matches, and says when the maker is unknown", () => {
    const noModel = withCheckDigit("4T1ZZZZZ0LU123456");
    expect(catalog.decodeVin(noModel)).toEqual({ status: "model_not_found", vin: noModel, year: 2020, make: "Toyota", model: null });
    const unknown = withCheckDigit("ZZZB11HK0LU123456");
    expect(catalog.decodeVin(unknown)).toEqual({ status: "unknown_manufacturer", vin: unknown, year: 2020 });
  });

  it("refuses malformed VINs and wrong check digits before looking anything up", () => {
    expect(catalog.decodeVin("4T1B11HK6LU12345")).toMatchObject({ status: "invalid", problem: "malformed" });
    expect(catalog.decodeVin("4T1B11HK5LU123456")).toMatchObject({ status: "invalid", problem: "check_digit" });
  });
});

describe("VIN patterns (hand-made data)", () => {
  const data: VehicleData = {
    version: "test",
    source: "test",
    generatedAt: "2026-01-01T00:00:00.000Z",
    years: { 2020: { Alpha: ["One"], Beta: ["Two"] } },
    vin: {
      makes: ["Alpha", "Beta"],
      models: ["Any", "Ranged", "Exact", "AfterCheckDigit", "SisterModel", "Small"],
      modelMakes: { 0: [0], 1: [0], 2: [0], 3: [0], 4: [1], 5: [1] },
      wmis: {
        AAA: { makes: [0, 1], schemas: [[1, 2015, null], [2, 2010, 2019]] },
        BB9ZZZ: { makes: [1], schemas: [[3, 2000, null]] },
      },
      schemas: {
        1: [["*", 0], ["[A-C]1", 1], ["X12Z4", 2], ["*****|*9", 3], ["S", 4]],
        2: [["*", 2]],
        3: [["*", 5]],
      },
    },
  };
  const patterns = createVehicleCatalog(data);
  // Position 7 is a letter in these VINs: position 10 then reads as 2010–2039.
  const decode = (vin: string) => patterns.decodeVin(withCheckDigit(vin));

  it("takes the most specific matching key, with * any character and [A-C] a range", () => {
    expect(decode("AAAX12Z40LA000000")).toMatchObject({ model: "Exact" });
    expect(decode("AAAB10Z00LA000000")).toMatchObject({ model: "Ranged" });
    expect(decode("AAAD10Z00LA000000")).toMatchObject({ model: "Any" });
  });

  it("reads keys past | against positions 10–17, skipping the check digit", () => {
    expect(decode("AAAD10Z00L9000000")).toMatchObject({ model: "AfterCheckDigit" });
  });

  it("uses only the schemas valid for the VIN's model year", () => {
    // Schema 2 (2010–2019) says "Exact" for any VIN, but only for model years up to 2019.
    expect(decode("AAAZZZZZ0M0000000")).toMatchObject({ year: 2021, model: "Any" });
    expect(decode("AAAZZZZZ0A0000000")).toMatchObject({ year: 2010, model: "Exact" });
  });

  it("names the sister make vPIC links the model to, and finds small makers by positions 12–14", () => {
    expect(decode("AAAS00Z00LA000000")).toMatchObject({ make: "Beta", model: "SisterModel" });
    expect(decode("BB9000Z00LAZZZ000")).toMatchObject({ make: "Beta", model: "Small" });
  });
});
