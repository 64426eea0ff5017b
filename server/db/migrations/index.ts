/**
 * The versioned schema, in order: one file per migration, named after its version. Never edit a
 * migration that has shipped: add one (the next number), and list it here.
 */
import type { Migration } from "./migration";
import { privacyRequests } from "./001-privacy-requests";
import { leadsAndConsents } from "./002-leads-and-consents";
import { deliveries } from "./003-deliveries";
import { consentCertificates } from "./004-consent-certificates";
import { suppressions } from "./005-suppressions";
import { leadCheck } from "./006-lead-check";
import { analyticsEvents } from "./007-analytics-events";
import { adminUsers } from "./008-admin-users";
import { rateLimits } from "./009-rate-limits";
import { vehiclesAndDrivers } from "./010-vehicles-and-drivers";
import { privacyAppeals } from "./011-privacy-appeals";
import { auctions } from "./012-auctions";
import { consentRevocations } from "./013-consent-revocations";
import { auctionReport } from "./014-auction-report";
import { testLeads } from "./015-test-leads";
import { clickKeyBot } from "./016-click-key-bot";
import { businessSettings } from "./017-business-settings";
import { auctionCascade } from "./018-auction-cascade";
import { leadTimeZone } from "./019-lead-time-zone";
import { deliveryAsSent } from "./020-delivery-as-sent";
import { pingAsSent } from "./021-ping-as-sent";
import { consentProof } from "./022-consent-proof";
import { leadChecks } from "./023-lead-checks";
import { experiments } from "./024-experiments";
import { experimentChanges } from "./025-experiment-changes";

export type { Migration };

export const migrations: Migration[] = [
  privacyRequests,
  leadsAndConsents,
  deliveries,
  consentCertificates,
  suppressions,
  leadCheck,
  analyticsEvents,
  adminUsers,
  rateLimits,
  vehiclesAndDrivers,
  privacyAppeals,
  auctions,
  consentRevocations,
  auctionReport,
  testLeads,
  clickKeyBot,
  businessSettings,
  auctionCascade,
  leadTimeZone,
  deliveryAsSent,
  pingAsSent,
  consentProof,
  leadChecks,
  experiments,
  experimentChanges,
];
