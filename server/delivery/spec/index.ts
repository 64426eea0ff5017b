/**
 * Buyer specs (issue 43): how one buyer takes a lead or a ping, as validated data, and the pure
 * functions that turn a lead into that buyer's exact request and read its answer by its rules.
 * Nothing here does I/O; the delivery worker, the pinger and the console call it.
 *
 * Use:
 *   const parsed = parseSpec(raw, "post");            // or requestSpecSchema / pingSpecSchema in a larger zod schema
 *   if (!parsed.ok) → parsed.problems: [{ path: "fields.3.from", message: "unknown fact …" }]
 *   const spec = compileSpec(parsed.spec);            // once per buyer and settings change
 *   if (spec.format === "quoteridge") → today's signed payload (server/delivery/payload.ts)
 *   const rendered = spec.render(
 *     { lead, now, consentText, certificateUrl, auction: { bidId, saleType }, price, test },
 *     { url: buyer.url, credentials: buyer.credentials });
 *   if (!rendered.ok) → not sent: rendered.missing ("driver.2.dateOfBirth"), rendered.field ("DOB2")
 *   send rendered.request (method, url, headers, body); keep rendered.masked with the delivery
 *   const reading = spec.readAnswer({ status, body });
 *     accepted { price | null, leadId } · refused { reason, leadId } · retry { reason }
 *     bid { price, bidId } · no_bid { reason } · error { why, excerpt }: record, try again, never a sale
 *
 * The spec format is documented in schema.ts (the request), facts.ts (what `from` may name),
 * transforms.ts, paths.ts (what `to` and answer paths look like) and answer.ts (answer rules);
 * the masked copy in mask.ts. specCredentialNames(spec) lists the credentials the buyer must have.
 */
export { requestSpecSchema, pingSpecSchema, parseSpec, specCredentialNames, authSchema } from "./schema";
export type { RequestSpec, RequestSpecInput, HttpSpec, QuoteridgeSpec, FieldRule, ItemRule, TestMark, SpecAuth, ParsedSpec } from "./schema";
export { compileSpec, httpSpecOf } from "./compile";
export type { CompiledSpec, CompiledHttpSpec, CompiledQuoteridgeSpec } from "./compile";
export type { RenderResult, RenderedRequest, RenderTarget, Credentials } from "./render";
export { factCatalog, FACTS } from "./facts";
export type { RenderInput, SpecLead, FactInfo, FactType, Scalar } from "./facts";
export { ANSWER_OUTCOMES, POST_OUTCOMES, PING_OUTCOMES } from "./answer";
export type { AnswerReading, BuyerAnswer, AnswerSpec, AnswerRule, SpecProblem, Stage } from "./answer";
export type { Transform } from "./transforms";
