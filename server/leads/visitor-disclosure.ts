/**
 * The consent disclosure per visitor (issue 44, docs/decisions/039-disclosure-per-visitor.md):
 * the words name the buyers that could take this visitor's request (server/leads/disclosure.ts,
 * buyersToName), worked out from the answers, the ZIP's state and whether the page came from a
 * test link. POST /api/leads/disclosure asks it when the form reaches the consent box; the lead
 * service asks it again for the request sent, and refuses a version that is not the answer's.
 *
 * Each distinct text is a stored version (server/consent/disclosures.ts). Versions never change
 * their words, so this process keeps text → version once it knows it: one database round trip
 * per new text, not per visitor.
 */
import type { Builder } from "../db/database";
import type { LiveSettings } from "../delivery/buyers";
import { offerFacts, type OfferLead } from "../delivery/offer";
import type { ZipDirectory } from "../zip-codes";
import { registerDisclosure } from "../consent/disclosures";
import { buyersToName, disclosureFor, type CurrentDisclosure, type DisclosureDraft } from "./disclosure";
import * as z from "zod/mini";
import { checkDisclosureAnswers } from "../../shared/lead/disclosure-answers";
import { LEAD_URL_MAX_LENGTH } from "../../shared/lead/api";
import { MAX_DRIVERS } from "../../shared/lead/fields";
import type { ShownDisclosure } from "../../shared/consent-disclosure";
import type { LeadErrors } from "../../shared/lead/fields";

export type DisclosureOutcome =
  | { kind: "shown"; disclosure: ShownDisclosure }
  | { kind: "invalid"; errors: LeadErrors }
  /** The body is not what the form sends; `message` is for the visitor. */
  | { kind: "rejected"; message: string };

export interface VisitorDisclosures {
  /** The stored disclosure a request with these answers (its state and test flag known) is agreed under. */
  forLead(lead: OfferLead, now: Date): Promise<CurrentDisclosure>;
  /** POST /api/leads/disclosure: the answers checked by the form's rules, the ZIP looked up, the words. */
  forRequest(body: unknown, now: Date): Promise<DisclosureOutcome>;
}

export interface VisitorDisclosureOptions {
  db: Builder;
  zipCodes: ZipDirectory;
  /** The settings in force (absent: no buyer, so every visitor's words name us alone). */
  settings?: () => LiveSettings;
  /** Whether the framing page came from an ops test link (server/leads/test-link.ts). */
  isTestPage(pageUrl: string, now: Date): boolean;
}

/**
 * The body's shape (shared/lead/disclosure-answers.ts, DisclosureAnswers); each answer's own rule
 * is the form's (checkDisclosureAnswers), so the answers keep their other keys here. Kept out of
 * shared/: the form's bundle needs none of it.
 */
const disclosureRequestSchema = z.object({
  answers: z.looseObject({
    vehicles: z.int(),
    drivers: z.array(z.record(z.string(), z.unknown())).check(z.maxLength(MAX_DRIVERS)),
  }),
  pageUrl: z.string().check(z.maxLength(LEAD_URL_MAX_LENGTH), z.url({ protocol: /^https?$/ })),
});

/** Distinct texts a process keeps; past it, the oldest is asked of the database again when next met. */
const KNOWN_TEXTS_MAX = 1_000;
const RELOAD = "This form is out of date. Reload the page and send it again.";

export function createVisitorDisclosures({ db, zipCodes, settings, isTestPage }: VisitorDisclosureOptions): VisitorDisclosures {
  const known = new Map<string, Promise<CurrentDisclosure>>();

  /** The draft's stored version: registered the first time this process meets the text (and ids). */
  function stored(draft: DisclosureDraft): Promise<CurrentDisclosure> {
    // The ids are part of the key: a buyer's id renamed keeps the words and moves the version's ids.
    const key = `${draft.sha256}\n${draft.buyerIds.join("\n")}`;
    let version = known.get(key);
    if (!version) {
      version = registerDisclosure(db, draft);
      version.catch(() => known.delete(key));
      known.set(key, version);
      if (known.size > KNOWN_TEXTS_MAX) known.delete(known.keys().next().value!);
    }
    return version;
  }

  function forLead(lead: OfferLead, now: Date): Promise<CurrentDisclosure> {
    return stored(disclosureFor(buyersToName(settings?.(), offerFacts(lead, now), now)));
  }

  return {
    forLead,
    async forRequest(body, now) {
      const parsed = disclosureRequestSchema.safeParse(body);
      if (!parsed.success) return { kind: "rejected", message: RELOAD };
      const checked = checkDisclosureAnswers(parsed.data.answers, now);
      if (!checked.ok) return { kind: "invalid", errors: checked.errors };
      const answers = checked.value;
      const location = zipCodes.lookup(answers.zip);
      if (!location) return { kind: "invalid", errors: { zip: `We could not find ZIP code ${answers.zip}. Check it and try again.` } };
      const disclosure = await forLead(
        { ...answers, vehicles: Array.from({ length: answers.vehicles }, () => null), state: location.state, test: isTestPage(parsed.data.pageUrl, now) },
        now,
      );
      return { kind: "shown", disclosure: { version: disclosure.version, parts: disclosure.parts } };
    },
  };
}
