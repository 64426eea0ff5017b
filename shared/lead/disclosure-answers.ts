/**
 * The answers the consent disclosure depends on (docs/decisions/039-disclosure-per-visitor.md):
 * the words name the buyers that could take the request, and which those are follows from the
 * ZIP (its state) and the answers the buyers' filters read (server/delivery/offer.ts). The form
 * sends these, and only these, to POST /api/leads/disclosure when the visitor reaches the screen
 * with the consent box: no name, no contact detail, no vehicle's details (the filters count the
 * vehicles). The server checks them with the form's own rules, so the same answers give the same
 * words when the request is sent.
 */
import { LEAD_MESSAGES, MAX_VEHICLES, checkLeadFields, checkRecordFields, type Driver, type Lead, type LeadErrors, type LeadField, type RawLead } from "./fields";

/** The request's own answers the filters read (insuredFor only when insured today, as the form asks it). */
export const DISCLOSURE_LEAD_FIELDS = ["zip", "currentlyInsured", "insuredFor", "coverage", "residence"] as const satisfies readonly LeadField[];
/** Each driver's answers the filters read: the age (from the date of birth) and the incidents. */
export const DISCLOSURE_DRIVER_FIELDS = ["dateOfBirth", "accidents", "tickets", "claims", "dui", "sr22"] as const satisfies readonly (keyof Driver)[];

type DisclosureDriverField = (typeof DISCLOSURE_DRIVER_FIELDS)[number];

/** What the form sends: the answers as typed, the vehicles counted, each driver's facts. */
export interface DisclosureAnswers {
  answers: Partial<Record<(typeof DISCLOSURE_LEAD_FIELDS)[number], unknown>> & { vehicles: number; drivers: Partial<Record<DisclosureDriverField, unknown>>[] };
  /** The framing page's address, as the request will send it: a test link's (server/leads/test-link.ts) makes a test lead. */
  pageUrl: string;
}

/** The answers as they are sent (the form's request, as screens.request builds it): those the words depend on. */
export function disclosureAnswers(request: RawLead): DisclosureAnswers["answers"] {
  const pick = <K extends string>(from: Partial<Record<string, unknown>>, fields: readonly K[]) => {
    const picked: Partial<Record<K, unknown>> = {};
    for (const field of fields) if (from[field] !== undefined) picked[field] = from[field];
    return picked;
  };
  const records = (value: unknown): Partial<Record<string, unknown>>[] => (Array.isArray(value) ? (value as Partial<Record<string, unknown>>[]) : []);
  return {
    ...pick(request, DISCLOSURE_LEAD_FIELDS),
    vehicles: records(request.vehicles).length,
    drivers: records(request.drivers).map((driver) => pick(driver, DISCLOSURE_DRIVER_FIELDS)),
  };
}

/** The checked answers, as a stored lead would have them. */
export type CheckedDisclosureAnswers = Pick<Lead, "zip" | "currentlyInsured" | "coverage" | "residence"> &
  Partial<Pick<Lead, "insuredFor">> & { vehicles: number; drivers: Pick<Driver, DisclosureDriverField>[] };

/** The answers checked by the form's rules (shared/lead/fields.ts); errors keyed as POST /api/leads keys them. */
export function checkDisclosureAnswers(
  answers: DisclosureAnswers["answers"],
  now: Date = new Date(),
): { ok: true; value: CheckedDisclosureAnswers } | { ok: false; errors: LeadErrors } {
  const top = checkLeadFields(answers as RawLead, DISCLOSURE_LEAD_FIELDS, now);
  const errors: LeadErrors = { ...top.errors };
  if (!Number.isInteger(answers.vehicles) || answers.vehicles < 1 || answers.vehicles > MAX_VEHICLES) errors.vehicles = LEAD_MESSAGES.vehicles;
  if (answers.drivers.length < 1) errors.drivers = LEAD_MESSAGES.drivers;
  const drivers = answers.drivers.map((driver, index) => {
    const checked = checkRecordFields("driver", driver, index, DISCLOSURE_DRIVER_FIELDS, now);
    for (const [field, message] of Object.entries(checked.errors)) errors[`drivers.${index}.${field}`] = message;
    return checked.values;
  });
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const { zip, currentlyInsured, insuredFor, coverage, residence } = top.values;
  return {
    ok: true,
    value: {
      zip: zip!,
      currentlyInsured: currentlyInsured!,
      coverage: coverage!,
      residence: residence!,
      ...(insuredFor !== undefined ? { insuredFor } : {}),
      vehicles: answers.vehicles,
      drivers: drivers as Pick<Driver, DisclosureDriverField>[],
    },
  };
}
