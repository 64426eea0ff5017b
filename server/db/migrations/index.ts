/**
 * The versioned schema, in order: one file per migration, named after its version. Never edit a
 * migration that has shipped: add one (the next number), and list it here.
 */
import type { Migration } from "./migration";
import { privacyRequests } from "./001-privacy-requests";
import { leadsAndConsents } from "./002-leads-and-consents";

export type { Migration };

export const migrations: Migration[] = [privacyRequests, leadsAndConsents];
