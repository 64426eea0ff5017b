/**
 * Every JSON endpoint, as one Express router mounted at /api (server/app.ts). Each endpoint
 * module lists its endpoints; here each POST gets its pipeline (server/api/pipeline.ts: our pages'
 * JSON with same-origin and CSRF, or a partner server's signed JSON), any other address under
 * /api a JSON 404, and every refusal the one envelope (server/api/errors.ts).
 */
import express from "express";
import type { Csrf } from "../csrf";
import type { PrivacyService } from "../privacy/service";
import type { ClientBudgets } from "../http/rate-limit";
import { jsonBodyPipeline, signedJsonPipeline, type Endpoint } from "./pipeline";
import { apiErrors, apiNotFound } from "./errors";
import type { OutageLog } from "../db/outage";
import { leadEndpoints, type LeadApiOptions } from "./leads";
import { privacyEndpoints } from "./privacy";
import { buyerReturnEndpoints, type BuyerReturnsOptions } from "./buyer-returns";
import { vehicleEndpoints } from "./vehicles";
import type { VehicleCatalog } from "../vehicles/catalog";
import { API_PREFIX } from "../../shared/routes";

export interface ApiDependencies {
  csrf: Csrf;
  /** Shared with the no-JavaScript form (server/routes/do-not-sell.ts). */
  budgets: ClientBudgets;
  privacy: PrivacyService;
  leads: LeadApiOptions;
  /** Year → make → model lists and VIN decoding (server/vehicles/catalog.ts); absent: those endpoints are a 404. */
  vehicles?: VehicleCatalog;
  /** Buyers' signed return reports, against the live settings' buyers; absent (tests of other parts): the endpoint is a 404. */
  buyerReturns?: BuyerReturnsOptions;
  /** Told of each request that met an unreachable database: one warning per outage (server/db/outage.ts). */
  outage?: OutageLog;
}

/** The endpoint's path inside the router (the paths in shared/routes.ts are full). */
function mountedPath(path: string): string {
  if (!path.startsWith(`${API_PREFIX}/`)) throw new Error(`API endpoint ${path} is not under ${API_PREFIX}`);
  return path.slice(API_PREFIX.length);
}

export function apiRouter({ csrf, budgets, privacy, leads, vehicles, buyerReturns, outage }: ApiDependencies): express.Router {
  const router = express.Router();
  const endpoints: Endpoint[] = [
    ...privacyEndpoints(privacy, csrf, budgets),
    ...leadEndpoints(leads, csrf, budgets),
    ...(vehicles ? vehicleEndpoints(vehicles) : []),
    ...(buyerReturns ? buyerReturnEndpoints(buyerReturns) : []),
  ];
  for (const endpoint of endpoints) {
    const path = mountedPath(endpoint.path);
    if (endpoint.method === "get") router.get(path, endpoint.handle);
    else if ("signedBody" in endpoint) router.post(path, ...signedJsonPipeline(endpoint.signedBody), endpoint.handle);
    else router.post(path, ...jsonBodyPipeline(endpoint.body, csrf), endpoint.handle);
  }
  router.use(apiNotFound);
  router.use(apiErrors(outage));
  return router;
}
