/**
 * The real Express app, built from the production build (dist/), with its pino logs captured
 * in memory so tests can assert on events and fields.
 */
import http from "node:http";
import { afterAll, beforeAll } from "vitest";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createApp } from "../../server/app";
import { loadConfig, type Config } from "../../server/config";
import { captureLogs, type LogLine } from "./log-capture";
import { createLifecycle, type Lifecycle } from "../../server/lifecycle";
import { loadProductionBuild, type RenderSource } from "../../server/pages/render-source";
import { staticAssets } from "../../server/pages/static";
import { projectRoot } from "../../tools/production-server";
import { loadBuyersFile } from "../../server/delivery/buyers";
import { returnLead } from "../../server/delivery/returns";
import type { BuyerReturnsOptions } from "../../server/api/buyer-returns";
import { testServices, type TestServices } from "./services";
import type { TestStore } from "./databases";
import { createEventWriter, type EventWriter } from "../../server/analytics/writer";
import { insertEvents } from "../../server/analytics/store";
import { loadVehicleCatalog, VEHICLE_DATA_PATH, type VehicleCatalog } from "../../server/vehicles/catalog";
import { createExposureWriter, type ExposureWriter } from "../../server/experiments/exposure";
import { insertExposures } from "../../server/db/experiment-exposures";
import type { Experiment } from "../../server/experiments/schema";

/** The committed data file, read once for all the apps a test file builds. */
let vehicleCatalog: VehicleCatalog | undefined;
function testVehicleCatalog(): VehicleCatalog {
  vehicleCatalog ??= loadVehicleCatalog(path.join(projectRoot, VEHICLE_DATA_PATH));
  return vehicleCatalog;
}

export type { LogLine };

export interface TestApp {
  app: ReturnType<typeof createApp>;
  logs: LogLine[];
  lifecycle: Lifecycle;
  config: Config;
  /** Log lines with this event name. */
  events(name: string): LogLine[];
  /** Everything logged, as the raw text written to stdout. */
  rawLogs(): string;
  /** The store and services behind the app (the store is opened on first use). */
  services: TestServices;
  /** How often the React router was asked to render (a page-cache hit does not count). */
  renders(): number;
  /** The event writer, with `analytics: true`. */
  analytics?: EventWriter;
  /** The experiments' exposure writer, with `experiments` (flush before reading experiment_exposures). */
  exposures?: ExposureWriter;
}

export interface TestAppOptions {
  /** The store behind privacy and quote requests (default: a temporary embedded store). */
  store?: TestStore;
  /** The quote form's minimum fill time (default 0: tests submit at once). */
  minFillMs?: number;
  /** A BUYERS_FILE: its buyers may report returns (POST /api/buyer-returns) against the test store. */
  buyersFile?: string;
  /** Store funnel events in the test store (flush with `analytics.flush()` before reading them). */
  analytics?: boolean;
  /**
   * A/B experiments the app runs, as the live settings' `experiments` (read per request, so a test
   * may stop one); exposures go to the test store (`exposures.flush()`).
   */
  experiments?: () => readonly Experiment[];
  /** The experiments' clock (default: now). */
  now?: () => Date;
}

export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({ NODE_ENV: "production", LOG_LEVEL: "debug", ...env });
  const { logger, lines: logs, raw } = captureLogs(config);
  const lifecycle = createLifecycle();
  const build = await loadProductionBuild(path.join(projectRoot, "dist"));
  let renders = 0;
  const source: RenderSource = {
    template: build.source.template,
    entry: async () => {
      const entry = await build.source.entry();
      return {
        prepare: (fetchRequest, context) => {
          renders += 1;
          return entry.prepare(fetchRequest, context);
        },
      };
    },
  };
  const buyers = options.buyersFile ? loadBuyersFile(options.buyersFile) : undefined;
  const services = testServices({ ...options, ...(buyers ? { buyers } : {}) });
  const buyerReturns: BuyerReturnsOptions | undefined = buyers && {
    buyers: () => buyers.buyers,
    returnLead: async (request, log) => returnLead({ db: await services.db(), buyers, logger: log }, request),
  };
  const analytics = options.analytics
    ? createEventWriter({
        logger,
        maxBuffer: config.ANALYTICS_BUFFER_MAX,
        flushMs: 60_000,
        // The store opens on first use: the writer asks for it when it first writes.
        write: async (events) => insertEvents(await services.db(), events, config.REPORT_TIME_ZONE),
      })
    : undefined;
  const exposures = options.experiments
    ? createExposureWriter({ logger, maxBuffer: 10_000, flushMs: 60_000, write: async (rows) => insertExposures((await services.db()).builder, rows) })
    : undefined;
  const experiments = options.experiments && exposures ? { running: options.experiments, exposures, ...(options.now ? { now: options.now } : {}) } : undefined;
  const app = createApp({ config, logger, lifecycle, source, assets: staticAssets(build.clientDir), privacy: services.privacy, leads: services.leads, vehicles: testVehicleCatalog(), ...(buyerReturns ? { buyerReturns } : {}), ...(analytics ? { analytics } : {}), ...(experiments ? { experiments } : {}) });
  return {
    ...(analytics ? { analytics } : {}),
    ...(exposures ? { exposures } : {}),
    app,
    logs,
    lifecycle,
    config,
    events: (name) => logs.filter((line) => line.event === name),
    rawLogs: () => raw.join(""),
    services,
    renders: () => renders,
  };
}

/** `app` on a real socket (a random loopback port), where the bytes on the wire are seen undecoded. */
export interface LoopbackServer {
  origin: string;
  close(): Promise<void>;
}

export async function listenOnLoopback(app: http.RequestListener): Promise<LoopbackServer> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * One test app for a file's tests, on a loopback socket: built before them, closed after. Read
 * `t` and `origin` inside tests (they exist once the file's beforeAll has run).
 */
export function servedTestApp(env: Record<string, string> = {}): { readonly t: TestApp; readonly origin: string } {
  let app: TestApp | undefined;
  let server: LoopbackServer | undefined;
  beforeAll(async () => {
    app = await createTestApp(env);
    server = await listenOnLoopback(app.app);
  });
  afterAll(() => server?.close());
  return {
    get t() {
      if (!app) throw new Error("servedTestApp: read t inside a test, after beforeAll");
      return app;
    },
    get origin() {
      if (!server) throw new Error("servedTestApp: read origin inside a test, after beforeAll");
      return server.origin;
    },
  };
}
