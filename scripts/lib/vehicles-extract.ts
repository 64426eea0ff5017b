/**
 * Derives the site's vehicle data from the vPIC database: for the curated makes of
 * shared/vehicles.ts, the models of each model year, and what offline VIN decoding needs (WMIs,
 * their VIN schemas by year, and the schemas' Model patterns).
 *
 * Models come from Wmi_Make ⋈ Wmi (passenger cars, trucks, MPVs) ⋈ Wmi_VinSchema (year range)
 * ⋈ Pattern (ElementId 28 = Model) ⋈ Model. VIN schemas are shared by sister makes (a Toyota WMI's
 * schema lists the Subaru BRZ), so a model is kept for a make only where vPIC's Make_Model links
 * the two.
 */
import type { VehicleData, VinData, WmiEntry } from "../../server/vehicles/data-format";
import { rows, type SqlDatabase } from "./vehicles-sqljs";

const MODEL_ELEMENT = 28;
/** vPIC VehicleType ids: 2 passenger car, 3 truck, 7 multipurpose passenger vehicle. */
const PERSONAL_VEHICLE_TYPES = [2, 3, 7];

export interface Extracted {
  years: VehicleData["years"];
  vin: VinData;
  unmatchedMakes: string[];
}

function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export function extractVehicleData(db: SqlDatabase, curatedMakes: readonly string[], oldestYear: number, newestYear: number): Extracted {
  // vPIC spells makes in capitals ("TOYOTA"); the site shows its own spelling.
  const byLowerName = new Map(curatedMakes.map((name) => [name.toLowerCase(), name]));
  const makeNames = new Map<number, string>();
  for (const [id, name] of rows(db, `SELECT Id, Name FROM Make WHERE lower(Name) IN (${[...byLowerName.keys()].map(sqlString).join(",")})`)) {
    const curated = byLowerName.get(String(name).toLowerCase());
    if (curated) makeNames.set(Number(id), curated);
  }
  const matched = new Set(makeNames.values());
  const unmatchedMakes = curatedMakes.filter((name) => !matched.has(name));
  const makeIds = [...makeNames.keys()].join(",");

  const makeModels = new Set(rows(db, `SELECT MakeId, ModelId FROM Make_Model WHERE MakeId IN (${makeIds})`).map(([make, model]) => `${make}:${model}`));

  // One row per (WMI, make, schema, year range, model): the year list and the VIN tables both come from it.
  const linked = rows(db, `
    SELECT w.Wmi, wm.MakeId, wvs.VinSchemaId, wvs.YearFrom, wvs.YearTo, m.Id, m.Name, p.Keys
    FROM Wmi_Make wm
    JOIN Wmi w ON w.Id = wm.WmiId AND w.VehicleTypeId IN (${PERSONAL_VEHICLE_TYPES.join(",")})
    JOIN Wmi_VinSchema wvs ON wvs.WmiId = w.Id
    JOIN Pattern p ON p.VinSchemaId = wvs.VinSchemaId AND p.ElementId = ${MODEL_ELEMENT}
    JOIN Model m ON m.Id = CAST(p.AttributeId AS INTEGER)
    WHERE wm.MakeId IN (${makeIds}) AND coalesce(wvs.YearTo, 9999) >= ${oldestYear}`);

  const years = new Map<number, Map<string, Set<string>>>();
  const makes: string[] = [];
  const models: string[] = [];
  const makeIndex = new Map<string, number>();
  const modelIndex = new Map<number, number>();
  const modelMakes: Record<string, number[]> = {};
  const wmis: Record<string, WmiEntry> = {};
  const schemas: Record<string, [string, number][]> = {};
  const schemaPatterns = new Map<number, Set<string>>();

  const indexOfMake = (name: string): number => {
    let index = makeIndex.get(name);
    if (index === undefined) {
      index = makes.push(name) - 1;
      makeIndex.set(name, index);
    }
    return index;
  };

  for (const [wmi, makeIdValue, schemaIdValue, yearFromValue, yearToValue, modelIdValue, modelNameValue, keysValue] of linked) {
    const makeId = Number(makeIdValue);
    const modelId = Number(modelIdValue);
    const make = makeNames.get(makeId);
    if (!make || !makeModels.has(`${makeId}:${modelId}`)) continue;
    const modelName = String(modelNameValue).trim();
    const yearFrom = Number(yearFromValue);
    const yearTo = yearToValue === null ? null : Number(yearToValue);

    for (let year = Math.max(yearFrom, oldestYear); year <= Math.min(yearTo ?? newestYear, newestYear); year += 1) {
      const perMake = years.get(year) ?? new Map<string, Set<string>>();
      years.set(year, perMake);
      const names = perMake.get(make) ?? new Set<string>();
      perMake.set(make, names);
      names.add(modelName);
    }

    const makeAt = indexOfMake(make);
    let modelAt = modelIndex.get(modelId);
    if (modelAt === undefined) {
      modelAt = models.push(modelName) - 1;
      modelIndex.set(modelId, modelAt);
    }
    const linkedMakes = (modelMakes[modelAt] ??= []);
    if (!linkedMakes.includes(makeAt)) linkedMakes.push(makeAt);

    const code = String(wmi).toUpperCase();
    const entry = (wmis[code] ??= { makes: [], schemas: [] });
    if (!entry.makes.includes(makeAt)) entry.makes.push(makeAt);
    const schemaId = Number(schemaIdValue);
    if (!entry.schemas.some(([id, from, to]) => id === schemaId && from === yearFrom && to === yearTo)) entry.schemas.push([schemaId, yearFrom, yearTo]);

    const keys = String(keysValue).toUpperCase();
    const seen = schemaPatterns.get(schemaId) ?? new Set<string>();
    schemaPatterns.set(schemaId, seen);
    if (!seen.has(`${keys}\u0000${modelAt}`)) {
      seen.add(`${keys}\u0000${modelAt}`);
      (schemas[schemaId] ??= []).push([keys, modelAt]);
    }
  }

  const sortedYears: VehicleData["years"] = {};
  for (const year of [...years.keys()].sort((a, b) => a - b)) {
    const perMake = years.get(year);
    if (!perMake) continue;
    const entry: Record<string, string[]> = {};
    for (const make of [...perMake.keys()].sort((a, b) => a.localeCompare(b))) {
      entry[make] = [...(perMake.get(make) ?? [])].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
    }
    sortedYears[year] = entry;
  }
  return { years: sortedYears, vin: { makes, models, modelMakes, wmis, schemas }, unmatchedMakes };
}
