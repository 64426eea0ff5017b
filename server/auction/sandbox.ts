/**
 * Test leads (issue 16's sandbox; docs/lead-auction.md, "Trying a new buyer"): a quote request
 * sent with this phone number, (201) 555-0199, is a test. The 555-0100…0199 numbers are reserved
 * for fiction in the North American numbering plan, so no real visitor has it. A test lead is
 * offered only to buyers marked `"sandbox": true` (by auction or fixed-price post), never to a
 * production buyer, and its sales never count as revenue; every other step is the real one, so a
 * new buyer's integration can be tried end to end on the production site. Ops can also mark a
 * lead with any contact details a test, by sending it from a signed test link
 * (server/leads/test-link.ts): then the lead's `test` column says so.
 */
export const TEST_LEAD_PHONE = "+12015550199";

/** Whether a lead is a test: its phone (as stored, E.164) is the test number, or ops marked it (a test link, server/leads/test-link.ts). */
export const isTestLead = (lead: { phone: string; test?: boolean | undefined }): boolean => lead.test === true || lead.phone === TEST_LEAD_PHONE;
