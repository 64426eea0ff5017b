/** The funnel events as the journey page names them (docs/analytics.md defines each). */
import type { AnalyticsEventName } from "../../shared/analytics";

export const eventLabels: Record<AnalyticsEventName, string> = {
  campaign_hit: "Campaign hit",
  zip_submitted: "ZIP submitted",
  quote_page_view: "Quote page viewed",
  form_started: "Form started",
  form_step_completed: "Form step completed",
  lead_submitted: "Lead submitted",
  lead_duplicate: "Duplicate lead",
  lead_refused: "Lead refused",
  buyer_pinged: "Buyer pinged",
  lead_sold: "Sold to buyer",
  buyer_rejected: "Rejected by buyer",
  delivery_failed: "Delivery failed",
  lead_returned: "Returned by buyer",
  postback_sent: "Postback sent",
  postback_failed: "Postback failed",
};
