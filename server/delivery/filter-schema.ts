/**
 * A buyer's `filters`: which leads it takes by the lead's own answers (issue 33, item 4). Its own
 * module, apart from the buyers file, so the buyers' database table (issue 33, item 1) validates
 * with this same schema. Every key is optional and an absent key takes every lead; unknown keys are
 * refused, so a misspelt filter ("maxAccident") stops start-up instead of silently taking all.
 * The evaluator is server/delivery/offer.ts; the format and an example are in docs/lead-delivery.md.
 */
import { z } from "zod";
import { COUNT_CHOICES, COVERAGE, INSURED_FOR, MAX_DRIVERS, MAX_VEHICLES, MAXIMUM_AGE, MINIMUM_DRIVER_AGE } from "../../shared/lead/fields";

const keys = <K extends string>(options: Readonly<Record<K, string>>) => Object.keys(options) as [K, ...K[]];
export const INSURED_FOR_KEYS = keys(INSURED_FOR);
export const COVERAGE_KEYS = keys(COVERAGE);
export type InsuredFor = (typeof INSURED_FOR_KEYS)[number];
export type CoverageWanted = (typeof COVERAGE_KEYS)[number];
/** "3" means "3 or more" on the form: a maximum of 3 takes every lead. */
const MAX_COUNT = Math.max(...Object.keys(COUNT_CHOICES).map(Number));

const zip = z.string().regex(/^\d{5}$/, "a 5-digit ZIP code, like 90210");
const zipPrefix = z.string().regex(/^\d{1,4}$/, "a ZIP prefix of 1 to 4 digits, like 902");

/** Lists to include (the lead must match one) or exclude (it must match none); at least one entry each when given. */
const includeExclude = (entry: z.ZodString) =>
  z
    .object({ include: z.array(entry).min(1).optional(), exclude: z.array(entry).min(1).optional() })
    .strict()
    .refine((lists) => lists.include !== undefined || lists.exclude !== undefined, "give include, exclude or both");

/** A range of whole numbers within [lowest, highest], either end optional, min ≤ max. */
const range = (lowest: number, highest: number) =>
  z
    .object({ min: z.number().int().min(lowest).max(highest).optional(), max: z.number().int().min(lowest).max(highest).optional() })
    .strict()
    .refine((range) => range.min !== undefined || range.max !== undefined, "give min, max or both")
    .refine((range) => range.min === undefined || range.max === undefined || range.min <= range.max, { message: "min must not be more than max", path: ["max"] });

const maxCount = z.number().int().min(0).max(MAX_COUNT);

export const filtersSchema = z
  .object({
    /** Exact 5-digit ZIP codes. */
    zips: includeExclude(zip).optional(),
    /** ZIP prefixes: "9" is all of 9xxxx, "902" all of 902xx. */
    zipPrefixes: includeExclude(zipPrefix).optional(),
    /** Every driver's age, at the time of offer: the youngest at least `min`, the oldest at most `max`. */
    driverAge: range(MINIMUM_DRIVER_AGE, MAXIMUM_AGE).optional(),
    /** true: insured today only; false: uninsured only. */
    currentlyInsured: z.boolean().optional(),
    /** Insured without a break for at least this long (implies insured today). */
    insuredForAtLeast: z.enum(INSURED_FOR_KEYS).optional(),
    /** true: homeowners only; false: renters and others only. */
    homeowner: z.boolean().optional(),
    vehicles: range(1, MAX_VEHICLES).optional(),
    drivers: range(1, MAX_DRIVERS).optional(),
    /** The household's accidents, tickets and claims in 3 years (all drivers together) at most. */
    maxAccidents: maxCount.optional(),
    maxTickets: maxCount.optional(),
    maxClaims: maxCount.optional(),
    /** false: no driver with a DUI; true: only leads with one (a non-standard carrier). */
    dui: z.boolean().optional(),
    /** false: no driver needing an SR-22; true: only leads that need one. */
    sr22: z.boolean().optional(),
    /** The coverage the visitor wants is one of these. */
    coverage: z.array(z.enum(COVERAGE_KEYS)).min(1).optional(),
  })
  .strict();
export type BuyerFilters = z.infer<typeof filtersSchema>;
