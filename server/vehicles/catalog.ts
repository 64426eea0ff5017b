/**
 * The vehicle catalog: year → make → model lists and offline VIN decoding, from NHTSA vPIC data
 * compiled into vehicle-data/vpic.json.gz by `npm run vehicles:update`. The file is read once at
 * start-up (a few hundred KB gzip, tens of ms); every answer is then a map read.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { checkVin, type VinProblem } from "../../shared/vin";
import type { VehicleData, WmiEntry } from "./data-format";
import { keySpecificity, keysMatch, patternTarget } from "./vin-patterns";

/** Relative to the project root (dist/.. in production). */
export const VEHICLE_DATA_PATH = "vehicle-data/vpic.json.gz";

/**
 * The data file seen from a server module: server/index.ts runs from server/ in development (the
 * root one folder up) and is bundled to dist/server/ in production (two folders up).
 */
export function vehicleDataFileFrom(moduleUrl: string): string {
  const candidates = [`../${VEHICLE_DATA_PATH}`, `../../${VEHICLE_DATA_PATH}`].map((relative) => fileURLToPath(new URL(relative, moduleUrl)));
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`The vehicle data file is missing (looked at ${candidates.join(", ")}): run \`npm run vehicles:update\`.`);
  return found;
}

export type VinDecode =
  | { status: "decoded"; vin: string; year: number; make: string; model: string }
  /** The maker is known but no model pattern matches: year and (when the WMI has one) make only. */
  | { status: "model_not_found"; vin: string; year: number; make: string | null; model: null }
  | { status: "unknown_manufacturer"; vin: string; year: number }
  | { status: "invalid"; problem: VinProblem; message: string };

export interface VehicleCatalog {
  /** The data's version ("vpic-2.0.1-2026-11-23"): the ETag of the vehicle API's answers. */
  version: string;
  years(): number[];
  /** Makes with models in that year (the site's spelling, alphabetical); [] for a year without data. */
  makes(year: number): string[];
  /** The make's models that year; undefined when the make is not in the catalog for that year. */
  models(year: number, make: string): string[] | undefined;
  /** The catalog's own spelling of a make, matched case-insensitively. */
  makeNamed(name: string): string | undefined;
  decodeVin(input: string): VinDecode;
}

export function loadVehicleCatalog(file: string): VehicleCatalog {
  return createVehicleCatalog(JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")) as VehicleData);
}

export function createVehicleCatalog(data: VehicleData): VehicleCatalog {
  const allMakes = new Map<string, string>();
  for (const perMake of Object.values(data.years)) for (const make of Object.keys(perMake)) allMakes.set(make.toLowerCase(), make);
  const years = Object.keys(data.years).map(Number).sort((a, b) => b - a);
  const { vin } = data;

  /** Small makers share a WMI ending in 9; positions 12–14 then tell them apart. */
  function wmiOf(code: string): WmiEntry | undefined {
    return vin.wmis[code.slice(0, 3)] ?? vin.wmis[code.slice(0, 3) + code.slice(11, 14)];
  }

  function bestModel(entry: WmiEntry, code: string, year: number): number | undefined {
    const target = patternTarget(code);
    let best: { model: number; specificity: number } | undefined;
    for (const [schemaId, from, to] of entry.schemas) {
      if (year < from || (to !== null && year > to)) continue;
      for (const [keys, model] of vin.schemas[schemaId] ?? []) {
        if (!keysMatch(keys, target)) continue;
        const specificity = keySpecificity(keys);
        if (!best || specificity > best.specificity) best = { model, specificity };
      }
    }
    return best?.model;
  }

  return {
    version: data.version,
    years: () => [...years],
    makes(year) {
      return Object.keys(data.years[year] ?? {});
    },
    models(year, make) {
      const models = data.years[year]?.[allMakes.get(make.toLowerCase()) ?? ""];
      return models ? [...models] : undefined;
    },
    makeNamed(name) {
      return allMakes.get(name.trim().toLowerCase());
    },
    decodeVin(input) {
      const checked = checkVin(input);
      if (!checked.ok) return { status: "invalid", problem: checked.problem, message: checked.message };
      const { vin: code, year } = checked;
      const entry = wmiOf(code);
      if (!entry) return { status: "unknown_manufacturer", vin: code, year };
      const model = bestModel(entry, code, year);
      const wmiMakes = entry.makes.map((index) => vin.makes[index] ?? "");
      if (model !== undefined) {
        // A WMI shared by sister makes: the make is the one vPIC links the model to.
        const linked = (vin.modelMakes[model] ?? []).map((index) => vin.makes[index] ?? "").find((make) => wmiMakes.includes(make));
        const make = linked ?? wmiMakes[0];
        const name = vin.models[model];
        if (make && name) return { status: "decoded", vin: code, year, make, model: name };
      }
      return { status: "model_not_found", vin: code, year, make: wmiMakes.length === 1 ? (wmiMakes[0] ?? null) : null, model: null };
    },
  };
}
