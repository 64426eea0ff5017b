/**
 * ZIP code → city and state, offline, from the `zipcodes` package (about 42,000 US ZIP codes,
 * including territories and military post offices). The quote form shows "Beverly Hills, CA" for
 * 90210, and every stored lead carries the city and state its ZIP belongs to. The data is loaded
 * once at start-up (about 0.3 s and 30 MB), so a lookup is a hash-map read.
 */
import zipcodes from "zipcodes";
import { zipSchema } from "../shared/campaign";

export interface ZipLocation {
  zip: string;
  city: string;
  state: string;
}

export interface ZipDirectory {
  /** The place a valid, known US ZIP belongs to; undefined for anything else. */
  lookup(zip: string): ZipLocation | undefined;
}

export function createZipDirectory(): ZipDirectory {
  return {
    lookup(zip) {
      if (!zipSchema.safeParse(zip).success) return undefined;
      const entry = zipcodes.lookup(zip);
      if (!entry || entry.country !== "US") return undefined;
      return { zip: entry.zip, city: entry.city, state: entry.state };
    },
  };
}
