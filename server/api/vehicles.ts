/**
 * The vehicle catalog's API (server/vehicles/catalog.ts, NHTSA vPIC data):
 * - GET /api/vehicles/makes?year=YYYY              the makes with models that model year
 * - GET /api/vehicles/models?year=YYYY&make=Name   that make's models that year
 * - GET /api/vehicles/vin/:vin                     year, make and model of a VIN, decoded offline
 * Every answer is a fact about the data, the same for everyone: cacheable for a day, with the
 * data's version as ETag (a new data file changes it; If-None-Match gets a 304).
 */
import type { Request, Response } from "express";
import { HttpError } from "../http/http-error";
import type { VehicleCatalog } from "../vehicles/catalog";
import type { Endpoint } from "./pipeline";
import { paths } from "../../shared/routes";

const VEHICLE_CACHE = "public, max-age=86400";

function invalid(field: string, message: string): HttpError {
  return new HttpError(422, message, {}, { [field]: message });
}

function queryText(req: Request, name: string): string {
  const value = req.query[name];
  return typeof value === "string" ? value.trim() : "";
}

function yearOf(req: Request, catalog: VehicleCatalog): number {
  const text = queryText(req, "year");
  const years = catalog.years();
  const newest = years[0] ?? 0;
  const oldest = years.at(-1) ?? 0;
  if (!/^\d{4}$/.test(text)) throw invalid("year", "The year is a 4-digit model year, like 2020.");
  const year = Number(text);
  if (year < oldest || year > newest) throw invalid("year", `We have vehicles for model years ${oldest} to ${newest}.`);
  return year;
}

/** Express answers 304 itself when the request's If-None-Match matches the ETag set here. */
function cacheable(res: Response, catalog: VehicleCatalog): Response {
  res.setHeader("Cache-Control", VEHICLE_CACHE);
  res.setHeader("ETag", `"${catalog.version}"`);
  return res;
}

export function vehicleEndpoints(catalog: VehicleCatalog): Endpoint[] {
  return [
    {
      method: "get",
      path: paths.vehicleMakesApi,
      handle(req, res) {
        const year = yearOf(req, catalog);
        cacheable(res, catalog).json({ year, makes: catalog.makes(year) });
      },
    },
    {
      method: "get",
      path: paths.vehicleModelsApi,
      handle(req, res) {
        const year = yearOf(req, catalog);
        const asked = queryText(req, "make");
        const make = asked ? catalog.makeNamed(asked) : undefined;
        if (!make) throw invalid("make", asked ? `We do not know the make "${asked.slice(0, 40)}".` : "Choose a make.");
        const models = catalog.models(year, make);
        if (!models) throw invalid("make", `We have no ${make} models for ${year}.`);
        cacheable(res, catalog).json({ year, make, models });
      },
    },
    {
      method: "get",
      path: `${paths.vehicleVinApi}/:vin`,
      handle(req, res) {
        const decoded = catalog.decodeVin(typeof req.params.vin === "string" ? req.params.vin : "");
        switch (decoded.status) {
          case "invalid":
            throw invalid("vin", decoded.message);
          case "unknown_manufacturer":
            throw new HttpError(404, `We could not find the maker of this VIN (its first characters, ${decoded.vin.slice(0, 3)}).`, { year: decoded.year });
          case "decoded":
          case "model_not_found": {
            const { vin, year, make, model } = decoded;
            cacheable(res, catalog).json({ vin, year, make, model });
          }
        }
      },
    },
  ];
}
