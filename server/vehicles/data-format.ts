/**
 * The shape of vehicle-data/vpic.json.gz, written by `npm run vehicles:update`
 * (scripts/vehicles-update.ts) and read by server/vehicles/catalog.ts. Names are stored once
 * (makes, models) and referred to by index, which keeps the file a few hundred KB.
 */

export interface VehicleData {
  /** "vpic-<corgi version>-<generated date>": the ETag of every vehicle API answer. */
  version: string;
  source: string;
  generatedAt: string;
  /** Model year → make name → model names (sorted, unique). */
  years: Record<string, Record<string, string[]>>;
  vin: VinData;
}

export interface VinData {
  makes: string[];
  models: string[];
  /** Model index → the make indexes vPIC's Make_Model links it to. */
  modelMakes: Record<string, number[]>;
  /** WMI (3 characters, or 6 for small makers: positions 1–3 and 12–14) → its makes and VIN schemas. */
  wmis: Record<string, WmiEntry>;
  /** VIN schema id → its model patterns: [Keys, model index]. */
  schemas: Record<string, [string, number][]>;
}

export interface WmiEntry {
  makes: number[];
  /** [VIN schema id, first model year, last model year or null for open-ended]. */
  schemas: [number, number, number | null][];
}
