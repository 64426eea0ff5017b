/**
 * A buyer's posting spec on its console page (issue 43, items 1 and 5): the spec in words (format,
 * method, authentication and the credentials' names, the field map "to ← from (transforms)", the
 * answer rules as sentences), its edit form (one JSON textarea per stage, checked by the engine's
 * parseSpec, each problem named by its path beside its textarea), the credential form (name and new
 * value; the value is never shown again, only its fingerprint), and the live preview: what the
 * buyer would receive for a stored lead, rendered by the engine (server/delivery/spec/) with the
 * lead as the delivery worker reads it, shown masked (credentials hidden, contact masked).
 */
import type { Database } from "../db/database";
import { leadRepository, type LeadRecord } from "../db/leads";
import type { Buyer } from "../delivery/buyers";
import { compileSpec, parseSpec, specCredentialNames, type RenderInput, type RequestSpec } from "../delivery/spec";
import { offerFacts, priceFor } from "../delivery/offer";
import { isTestLead } from "../auction/sandbox";
import { CREDENTIAL_NAME, secretFingerprint, type BuyerSpec } from "../settings/store";
import type { BuyerCredentialView, BuyerSpecView, CredentialFormState, FormValues, SpecFormState, SpecPreviewResult, SpecPreviewView, SpecStage, SpecStageView } from "../../shared/admin-views";
import { answerSentences, authWords, fieldRows, FORMAT_WORDS } from "./spec-words";
import { leadReferenceOf } from "./leads-view";
import { text } from "./settings-form";

/** The longest spec the form takes, per stage (300 field rules of a few hundred characters). */
export const MAX_SPEC_CHARACTERS = 60_000;
/** As buyerSchema's credentials take a value. */
const MAX_CREDENTIAL_LENGTH = 500;
/** Stand-ins for what only a real auction knows, so a ping/post buyer's post can be previewed. */
export const PREVIEW_BID_ID = "BID-PREVIEW";
export const PREVIEW_PING_ID = "ping-preview";

/** The stages a buyer has: the post, and the ping for a ping/post buyer. */
export const stagesOf = (buyer: Pick<Buyer, "mode">): SpecStage[] => (buyer.mode === "pingpost" ? ["post", "ping"] : ["post"]);

const stageUrl = (buyer: Pick<Buyer, "url" | "pingUrl">, stage: SpecStage) => (stage === "ping" ? (buyer.pingUrl ?? "") : buyer.url);

/** Whether any stage of the buyer is written by a spec of its own (not our signed JSON). */
export const hasOwnSpec = (buyer: Pick<Buyer, "spec">): boolean => [buyer.spec?.post, buyer.spec?.ping].some((spec) => spec !== undefined && spec.format !== "quoteridge");

function stageView(buyer: Buyer, stage: SpecStage): SpecStageView {
  const spec = buyer.spec?.[stage];
  const url = stageUrl(buyer, stage);
  if (!spec || spec.format === "quoteridge") {
    return { stage, format: "quoteridge", formatText: FORMAT_WORDS.quoteridge!, method: null, url, contentType: null, auth: "our signature (X-Signature, the buyer's secret)", credential: null, headers: [], fields: [], answer: [] };
  }
  return {
    stage,
    format: spec.format,
    formatText: FORMAT_WORDS[spec.format] ?? spec.format,
    method: spec.method,
    url,
    contentType: spec.contentType ?? null,
    auth: authWords(spec.auth),
    credential: spec.auth.type === "none" ? null : spec.auth.credential,
    headers: Object.entries(spec.headers).map(([name, value]) => ({ name, value })),
    fields: fieldRows(spec),
    answer: answerSentences(spec),
  };
}

const specJson = (spec: RequestSpec | undefined) => (spec === undefined ? "" : JSON.stringify(spec, null, 2));

/** The buyer's spec for its page: every stage in words, its credentials by name and fingerprint. */
export function buyerSpecView(buyer: Buyer): BuyerSpecView {
  const stages = stagesOf(buyer);
  const usedBy = new Map<string, SpecStage[]>();
  for (const stage of stages) {
    const spec = buyer.spec?.[stage];
    for (const name of spec ? specCredentialNames(spec) : []) usedBy.set(name, [...(usedBy.get(name) ?? []), stage]);
  }
  const names = [...new Set([...Object.keys(buyer.credentials ?? {}), ...usedBy.keys()])].sort((a, b) => a.localeCompare(b));
  const credentials: BuyerCredentialView[] = names.map((name) => {
    const value = buyer.credentials?.[name];
    return { name, fingerprint: value === undefined ? null : secretFingerprint(value), usedBy: usedBy.get(name) ?? [] };
  });
  const json: BuyerSpecView["json"] = { post: specJson(buyer.spec?.post), ...(buyer.mode === "pingpost" ? { ping: specJson(buyer.spec?.ping) } : {}) };
  return { stages: stages.map((stage) => stageView(buyer, stage)), credentials, json };
}

export type SpecFormResult = { ok: true; spec: BuyerSpec | undefined } | { ok: false; state: SpecFormState };

/** Where JSON.parse stopped, as "line 3, column 7" when it says a position. */
function jsonProblem(source: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /position (\d+)/.exec(message);
  if (!position) return `not JSON: ${message}`;
  const before = source.slice(0, Number(position[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `not JSON: ${message.replace(/\s*\(line \d+ column \d+\)$/, "")} (line ${line}, column ${column})`;
}

/**
 * The spec form checked: each stage's textarea as JSON, then by parseSpec for its stage, then
 * against the buyer (a ping only for a ping/post buyer; each credential its auth names must be
 * set). Empty: no spec of its own (our signed JSON). Every problem with its path in the spec.
 */
export function checkSpecForm(values: FormValues, buyer: Buyer): SpecFormResult {
  const stages = stagesOf(buyer);
  const raw = { post: rawText(values, "spec.post"), ping: rawText(values, "spec.ping") };
  const state: SpecFormState = { values: { post: raw.post, ...(stages.includes("ping") ? { ping: raw.ping } : {}) }, errors: {} };
  const spec: BuyerSpec = {};
  for (const stage of ["post", "ping"] as const) {
    const source = raw[stage];
    if (source.trim() === "") continue;
    const problems: { path: string; message: string }[] = [];
    if (!stages.includes(stage)) problems.push({ path: "", message: 'a ping spec is for a ping/post buyer only (mode "pingpost")' });
    else if (source.length > MAX_SPEC_CHARACTERS) problems.push({ path: "", message: `at most ${MAX_SPEC_CHARACTERS.toLocaleString("en-US")} characters` });
    else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(source) as unknown;
      } catch (error) {
        problems.push({ path: "", message: jsonProblem(source, error) });
      }
      if (problems.length === 0) {
        const checked = parseSpec(parsed, stage);
        if (!checked.ok) problems.push(...checked.problems.map((problem) => ({ path: problem.path, message: problem.message })));
        else {
          for (const name of specCredentialNames(checked.spec)) {
            if (buyer.credentials?.[name] === undefined) problems.push({ path: "auth.credential", message: `this buyer has no credential "${name}": set it under Credentials on this page first, then save the spec` });
          }
          if (problems.length === 0) spec[stage] = checked.spec;
        }
      }
    }
    if (problems.length > 0) state.errors[stage] = problems;
  }
  if (Object.keys(state.errors).length > 0) return { ok: false, state };
  return { ok: true, spec: spec.post === undefined && spec.ping === undefined ? undefined : spec };
}

/** A textarea's text as sent (not trimmed: line and column numbers must match what ops typed). */
function rawText(values: FormValues, name: string): string {
  const value = values[name];
  return Array.isArray(value) ? (value[0] ?? "") : (value ?? "");
}

export type CredentialFormResult = { ok: true; name: string; value: string } | { ok: false; state: CredentialFormState };

/** The credential form: a name as buyerSchema takes it, and a value of 1 to 500 characters (never echoed back). */
export function checkCredentialForm(values: FormValues): CredentialFormResult {
  const name = text(values, "name");
  const value = text(values, "value");
  const errors: CredentialFormState["errors"] = {};
  if (!CREDENTIAL_NAME.test(name)) errors.name = name === "" ? "Enter the credential's name, as the spec's auth names it." : "1 to 40 letters, digits, . _ and -.";
  if (value === "") errors.value = "Enter the new value.";
  else if (value.length > MAX_CREDENTIAL_LENGTH) errors.value = `At most ${MAX_CREDENTIAL_LENGTH} characters.`;
  if (errors.name || errors.value) return { ok: false, state: { name: name.slice(0, 60), errors } };
  return { ok: true, name, value };
}

/** The newest lead's reference, the preview's default; undefined when none is stored. */
async function newestReference(db: Database): Promise<string | undefined> {
  const row = await db.builder.selectFrom("leads").select("reference").orderBy("receivedAt", "desc").orderBy("id", "desc").limit(1).executeTakeFirst();
  return row?.reference;
}

/** The words the visitor agreed to (the consent record's disclosure version), as the buyer's consent.text. */
async function consentTextOf(db: Database, lead: LeadRecord): Promise<string | null> {
  if (!lead.consent) return null;
  const row = await db.builder.selectFrom("consentDisclosures").select("text").where("version", "=", lead.consent.disclosureVersion).executeTakeFirst();
  return row?.text ?? null;
}

export interface PreviewOptions {
  /** The reference asked for in the form (undefined: the newest lead). */
  asked: string | undefined;
  now: Date;
  /** The buyer's consent certificate link for the lead, as the delivery worker gives it. */
  certificateUrl?: (lead: LeadRecord, buyerId: string) => string | null;
}

/**
 * What the buyer would receive for a lead (the newest by default), per stage: the masked request
 * the engine renders, or the value the lead lacks. Undefined for a buyer that takes our signed
 * JSON at every stage (nothing of its own to preview).
 */
export async function specPreview(db: Database, buyer: Buyer, { asked, now, certificateUrl }: PreviewOptions): Promise<SpecPreviewView | undefined> {
  if (!hasOwnSpec(buyer)) return undefined;
  const typed = (asked ?? "").trim().slice(0, 40);
  const view = (reference: string | null, error?: string): SpecPreviewView => ({ reference, asked: typed || (reference ?? ""), ...(error ? { error } : {}), stages: [], notes: [] });
  let reference: string | undefined;
  if (typed !== "") {
    reference = leadReferenceOf(typed);
    if (!reference) return view(null, "A lead reference looks like LD-7K3M-Q9XD.");
  } else {
    reference = await newestReference(db);
    if (!reference) return view(null, "No lead is stored yet: there is nothing to preview.");
  }
  const lead = await leadRepository(db).findByReference(reference);
  if (!lead) return view(null, `There is no lead ${reference} (it may have been purged).`);
  const consentText = await consentTextOf(db, lead);
  const pingpost = buyer.mode === "pingpost";
  const price = priceFor(buyer, offerFacts({ ...lead, test: isTestLead(lead) }, now)).price;
  const base: RenderInput = { lead, now, consentText, certificateUrl: certificateUrl?.(lead, buyer.id) ?? null, test: isTestLead(lead) };
  const stages = stagesOf(buyer).map((stage) => {
    const spec = buyer.spec?.[stage];
    if (!spec) return { stage, result: { kind: "quoteridge" } as SpecPreviewResult };
    const compiled = compileSpec(spec);
    if (compiled.format === "quoteridge") return { stage, result: { kind: "quoteridge" } as SpecPreviewResult };
    const input: RenderInput =
      stage === "ping" ? { ...base, pingId: PREVIEW_PING_ID } : { ...base, price, ...(pingpost ? { auction: { bidId: PREVIEW_BID_ID, saleType: "exclusive" as const } } : {}) };
    const rendered = compiled.render(input, { url: stageUrl(buyer, stage), credentials: buyer.credentials ?? {} });
    const result: SpecPreviewResult = rendered.ok
      ? { kind: "request", method: rendered.masked.method, url: rendered.masked.url, headers: Object.entries(rendered.masked.headers).map(([name, value]) => ({ name, value })), body: rendered.masked.body }
      : { kind: "not_sent", missing: rendered.missing, field: rendered.field, why: rendered.why ?? null };
    return { stage, result };
  });
  const notes: string[] = [];
  if (pingpost) notes.push(`A ping/post buyer's post is sent after it wins an auction: the bid id (${PREVIEW_BID_ID}) and the price ($${price.toFixed(2)}, its base price and price rules) stand in for its bid's; the ping's id is ${PREVIEW_PING_ID}.`);
  if (base.test) notes.push("This is a test lead: the request carries the spec's test mark.");
  return { reference, asked: typed || reference, stages, notes };
}
