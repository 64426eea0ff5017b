/**
 * ZIP code → city, state and time zone, offline, from the `zipcodes` package (about 42,000 US ZIP
 * codes, including territories and military post offices) and `@photostructure/tz-lookup` (the
 * IANA time zone at the ZIP's coordinates: a split state's ZIPs get the right side of the line).
 * The quote form shows "Beverly Hills, CA" for 90210, every stored lead carries the city and
 * state its ZIP belongs to, and every delivery the lead's time zone (its calling rules).
 *
 * The package keeps an object per code (coordinates, Canada's codes too): loaded in this
 * process it holds about 60 MB of heap for good, and its 5 MB source leaves the resident size
 * ~100 MB higher (issue 12: the server's memory under ad traffic). So it is loaded once, at
 * start-up, in a worker thread that sends back only the US codes' places as text and exits:
 * its whole heap goes with it. A lookup stays a hash-map read, for a few MB.
 */
import { createRequire } from "node:module";
import { MessageChannel, Worker, receiveMessageOnPort } from "node:worker_threads";
import { zipSchema } from "../shared/campaign";

export interface ZipLocation {
  zip: string;
  city: string;
  state: string;
  /** IANA time zone, "America/Chicago"; "" when the coordinates have none (never seen in the table). */
  timeZone: string;
}

export interface ZipDirectory {
  /** The place a valid, known US ZIP belongs to; undefined for anything else. */
  lookup(zip: string): ZipLocation | undefined;
}

/**
 * Runs in the worker (CommonJS, evaluated): the package's US codes as "zip\tcity\tstate" lines,
 * or the error that stopped it; then wakes the waiting main thread.
 */
const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const { entry, zoneEntry, port, done } = workerData;
try {
  const { codes } = require(entry);
  const zoneModule = require(zoneEntry);
  const zoneAt = zoneModule.default || zoneModule;
  const lines = [];
  for (const code of Object.values(codes)) {
    if (code.country !== "US" || !/^\\d{5}$/.test(code.zip)) continue;
    let zone = "";
    try { zone = zoneAt(code.latitude, code.longitude); } catch { zone = ""; }
    lines.push(code.zip + "\\t" + code.city + "\\t" + code.state + "\\t" + zone);
  }
  port.postMessage({ places: lines.join("\\n") });
} catch (error) {
  port.postMessage({ error: String(error && error.stack || error) });
}
Atomics.store(done, 0, 1);
Atomics.notify(done, 0);
`;
const LOAD_TIMEOUT_MS = 60_000;

/** zip → "city\tstate\ttime zone", built once per process. */
let places: Map<string, string> | undefined;

function loadPlaces(): Map<string, string> {
  const resolve = createRequire(import.meta.url).resolve;
  const { port1, port2 } = new MessageChannel();
  const done = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { entry: resolve("zipcodes"), zoneEntry: resolve("@photostructure/tz-lookup"), port: port2, done }, transferList: [port2] });
  try {
    // Start-up only, before the server listens: waiting here keeps createZipDirectory() synchronous.
    if (Atomics.wait(done, 0, 0, LOAD_TIMEOUT_MS) === "timed-out") throw new Error(`the ZIP code table did not load within ${LOAD_TIMEOUT_MS / 1000} s`);
    const message = receiveMessageOnPort(port1)?.message as { places?: string; error?: string } | undefined;
    if (message?.places === undefined) throw new Error(`the ZIP code table could not be loaded: ${message?.error ?? "no answer from its worker"}`);
    const map = new Map<string, string>();
    for (const line of message.places.split("\n")) {
      const tab = line.indexOf("\t");
      map.set(line.slice(0, tab), line.slice(tab + 1));
    }
    return map;
  } finally {
    port1.close();
    void worker.terminate();
  }
}

export function createZipDirectory(): ZipDirectory {
  places ??= loadPlaces();
  const known = places;
  return {
    lookup(zip) {
      if (!zipSchema.safeParse(zip).success) return undefined;
      const place = known.get(zip);
      if (place === undefined) return undefined;
      const [city = "", state = "", timeZone = ""] = place.split("\t");
      return { zip, city, state, timeZone };
    },
  };
}
