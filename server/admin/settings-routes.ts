/**
 * Buyers and traffic sources in the console (issue 33, item 2): the detail pages for every role,
 * and for ops the forms and actions that create, edit, pause, resume, archive and rotate a secret.
 * Every change goes through server/settings/store.ts (history in the same transaction), is logged
 * as admin_action, and is applied by this replica at once (`settings.refresh()`; the others poll).
 * A wrong form answers 422 with the form as sent and each problem beside its field; an edit saved
 * over someone else's answers 409. A secret the server makes is shown once, in the answer to the
 * request that made it: it is never put in a cookie, a redirect or a log line.
 */
import express, { type Request, type RequestHandler, type Response, type Router } from "express";
import type { Database } from "../db/database";
import { BUYER_STATUSES, SOURCE_STATUSES, type BuyerStatus, type SourceStatus } from "../delivery/buyers";
import { campaignIdSchema } from "../../shared/campaign";
import {
  createBuyer,
  createSource,
  getBuyer,
  getSource,
  loadSettings,
  rotateBuyerSecret,
  setBuyerCredential,
  setBuyerStatus,
  setSourceStatus,
  SettingsKeyError,
  StaleRevisionError,
  updateBuyer,
  updateBuyerSpec,
  updateSource,
} from "../settings/store";
import type { SettingsDirectory } from "../settings/directory";
import { adminPaths, buyerPaths, sourcePaths, type BuyerDetailView, type BuyerFormView, type FormValues, type SourceFormView } from "../../shared/admin-views";
import { parsedBody } from "../http/guards";
import { back, logAction } from "./actions";
import type { FlashStore } from "./flash";
import type { RenderView } from "./render";
import { requireSessionCsrf, sessionOf } from "./session-guard";
import { buyerToForm, checkBuyerForm, ruleRowsFor } from "./buyer-form";
import { checkSourceForm, sourceToForm } from "./source-form";
import { formValuesOf, text } from "./settings-form";
import type { OutboundPolicy } from "../delivery/outbound";
import { buyerDetailView, deliveriesInFlight, sourceDetailView, sourcesView } from "./settings-views";
import { checkCredentialForm, checkSpecForm, specPreview } from "./buyer-spec";
import type { LeadRecord } from "../db/leads";
import { sendTestLead, testLeadLimiter } from "./buyer-test-lead";

/** A buyer form with every state ticked and several price rules is a few hundred fields: its own parser, the other forms keep theirs. */
const SETTINGS_FORM_LIMIT = "64kb";
const SETTINGS_FORM_PARAMETERS = 500;
/** The spec form: two JSON textareas of up to MAX_SPEC_CHARACTERS each, urlencoded (a few times longer). */
const SPEC_FORM_LIMIT = "512kb";
/** How long ops may keep the old secret working after a rotation: up to a week. */
export const MAX_OVERLAP_HOURS = 168;
export const DEFAULT_OVERLAP_HOURS = 24;
const BUYER_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** A new buyer's form: the schema's defaults filled in. */
const NEW_BUYER: FormValues = { mode: "post", timeoutMs: "5000", pingTimeoutMs: "500", priority: "0", saleTypes: ["shared"] };

export interface SettingsRouteDependencies {
  db: Database;
  settings: SettingsDirectory | undefined;
  render: RenderView;
  flash: FlashStore;
  /** Which addresses buyers and sources may be given (server/delivery/outbound.ts). */
  outbound: OutboundPolicy;
  ops: RequestHandler;
  now: () => Date;
  /** The consent certificate link a buyer gets with a lead (as the delivery worker makes it), for the spec preview. */
  certificateUrl?: (lead: LeadRecord, buyerId: string) => string | null;
  /** Test leads one console user may send a minute (server/admin/buyer-test-lead.ts; default 5). */
  testLeadsPerMinute?: number;
}

const actorOf = (res: Response) => `console:${sessionOf(res).name}`;
/** The spec form's textareas as sent, to show them again. */
const specValues = (values: FormValues, mode: string): { post: string; ping?: string } => {
  const raw = (name: string) => {
    const value = values[name];
    return Array.isArray(value) ? (value[0] ?? "") : (value ?? "");
  };
  return { post: raw("spec.post"), ...(mode === "pingpost" ? { ping: raw("spec.ping") } : {}) };
};
const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

export function settingsRoutes({ db, settings, render, flash, outbound, ops, now, certificateUrl, testLeadsPerMinute }: SettingsRouteDependencies): Router {
  const router = express.Router();
  const form = parsedBody(express.urlencoded({ extended: false, limit: SETTINGS_FORM_LIMIT, parameterLimit: SETTINGS_FORM_PARAMETERS }), () => "The form could not be read.");
  const post = [form, requireSessionCsrf, ops];
  const testLeads = testLeadLimiter(testLeadsPerMinute);
  const specForm = parsedBody(express.urlencoded({ extended: false, limit: SPEC_FORM_LIMIT, parameterLimit: 10 }), () => "The form could not be read.");
  const notFound = (req: Request, res: Response, message: string) => render(req, res, 404, { page: "error", status: 404, message });
  const current = () => settings?.current();
  /** The buyers and sources stored now (not this replica's copy, which may be a poll behind): a taken id or name is told with the form's other problems. */
  const storedNow = () => loadSettings(db.builder);
  /** After a change: this replica applies it now, so the next page and the next lead see it. */
  const applied = async () => settings?.refresh();

  const buyerForm = (view: Omit<BuyerFormView, "page" | "ruleRows">, blankRules = 1): BuyerFormView => ({ page: "buyer-form", ruleRows: ruleRowsFor(view.values, blankRules), ...view });
  const sourceForm = (view: Omit<SourceFormView, "page">): SourceFormView => ({ page: "source-form", ...view });

  /** The buyer's id from the address, when it could be one (anything else is no page). */
  const buyerIdOf = (req: Request) => {
    const id = req.params.id;
    return typeof id === "string" && BUYER_ID.test(id) ? id : undefined;
  };
  const sidOf = (req: Request) => {
    const parsed = campaignIdSchema.safeParse(req.params.sid);
    return parsed.success ? parsed.data : undefined;
  };

  /**
   * The buyer's page, with what this answer adds (a one-time secret, a message, a problem). Ops
   * also get the spec preview (masked, but a lead's contact even masked is not an analyst's), for
   * the lead the query's `lead` names or the newest.
   */
  async function buyerDetail(req: Request, res: Response, status: number, id: string, extra: Pick<BuyerDetailView, "oneTimeSecret" | "flash" | "rotateError" | "specForm" | "credentialForm" | "testLead"> = {}) {
    const settingsNow = current();
    const view = settingsNow ? await buyerDetailView(db, settingsNow, id, now()) : undefined;
    if (!view) return notFound(req, res, `There is no buyer ${id}.`);
    const stored = sessionOf(res).role === "ops" ? await getBuyer(db.builder, id) : undefined;
    const asked = req.method === "GET" && typeof req.query.lead === "string" ? req.query.lead : undefined;
    const preview = stored ? await specPreview(db, stored.entry, { asked, now: now(), ...(certificateUrl ? { certificateUrl } : {}) }) : undefined;
    return render(req, res, status, { ...view, ...extra, ...(preview ? { preview } : {}) });
  }

  // --- Buyers ------------------------------------------------------------------------------------

  router.get(adminPaths.buyerNew, ops, async (req, res) => {
    if (!settings) return notFound(req, res, "This console runs without business settings.");
    return render(req, res, 200, buyerForm({ mode: "create", values: NEW_BUYER, errors: {} }, 2));
  });

  router.post(adminPaths.buyers, ...post, async (req, res) => {
    if (!settings) return notFound(req, res, "This console runs without business settings.");
    const values = formValuesOf(req.body);
    // "More price rules": the same form again with empty rows, nothing saved.
    if (text(values, "more") === "rules") return render(req, res, 200, buyerForm({ mode: "create", values, errors: {} }, 3));
    const checked = checkBuyerForm(values, { status: "active", outbound, others: (await storedNow()).buyers });
    const target = text(values, "id").slice(0, 40);
    if (!checked.ok) {
      logAction(req, res, "create_buyer", target, "invalid", { fields: Object.keys(checked.errors) });
      return render(req, res, 422, buyerForm({ mode: "create", values, errors: checked.errors }));
    }
    let secret: string;
    try {
      ({ secret } = await createBuyer(db.builder, checked.buyer, actorOf(res)));
    } catch (error) {
      if (!(error instanceof SettingsKeyError)) throw error;
      logAction(req, res, "create_buyer", target, "invalid", { fields: [/named/.test(error.message) ? "name" : "id"] });
      const errors: Record<string, string> = error.field === "name" ? { name: `Another buyer is called ${checked.buyer.name}: the consent names buyers, so each name is one buyer's.` } : { id: `A buyer with id ${checked.buyer.id} exists already.` };
      return render(req, res, 422, buyerForm({ mode: "create", values, errors }));
    }
    await applied();
    logAction(req, res, "create_buyer", checked.buyer.id, "done");
    // The secret is in this answer only: the page after it shows its fingerprint.
    return buyerDetail(req, res, 201, checked.buyer.id, {
      oneTimeSecret: { secret, reason: "created", previousUntil: null },
      flash: { kind: "success", text: `Created buyer ${checked.buyer.id}. Copy its secret now: it is not shown again.` },
    });
  });

  router.get("/buyers/:id", async (req, res) => {
    const id = buyerIdOf(req);
    if (!id) return notFound(req, res, "There is no such buyer.");
    return buyerDetail(req, res, 200, id);
  });

  router.get("/buyers/:id/edit", ops, async (req, res) => {
    const id = buyerIdOf(req);
    const stored = id ? await getBuyer(db.builder, id) : undefined;
    if (!id || !stored) return notFound(req, res, "There is no such buyer.");
    return render(req, res, 200, buyerForm({ mode: "edit", key: id, revision: stored.revision, values: buyerToForm(stored.entry), errors: {} }, 2));
  });

  router.post("/buyers/:id", ...post, async (req, res) => {
    const id = buyerIdOf(req);
    const stored = id ? await getBuyer(db.builder, id) : undefined;
    if (!id || !stored) return notFound(req, res, "There is no such buyer.");
    const values = formValuesOf(req.body);
    const revisionText = text(values, "revision");
    const revision = /^\d{1,9}$/.test(revisionText) ? Number(revisionText) : undefined;
    const edit = (status: number, errors: Record<string, string>, extra: Partial<BuyerFormView> = {}, blankRules = 1) =>
      render(req, res, status, { ...buyerForm({ mode: "edit", key: id, ...(revision !== undefined ? { revision } : {}), values, errors }, blankRules), ...extra });
    if (text(values, "more") === "rules") return edit(200, {}, {}, 3);
    if (revision === undefined) {
      logAction(req, res, "update_buyer", id, "invalid", { fields: ["revision"] });
      return edit(422, { "": "This form does not say which version of the buyer it edits: open the edit page again." });
    }
    // The form has no spec: the stored one is kept (with its credentials, which the store keeps
    // itself). Should the spec change meanwhile, the revision has moved and the save is a 409.
    const checked = checkBuyerForm(values, { id, status: stored.entry.status, outbound, others: (await storedNow()).buyers, keep: { spec: stored.entry.spec, credentials: stored.entry.credentials } });
    if (!checked.ok) {
      logAction(req, res, "update_buyer", id, "invalid", { fields: Object.keys(checked.errors) });
      return edit(422, checked.errors);
    }
    let saved: number;
    try {
      saved = await updateBuyer(db.builder, checked.buyer, revision, actorOf(res));
    } catch (error) {
      if (error instanceof StaleRevisionError) {
        logAction(req, res, "update_buyer", id, "conflict", { revision, current: error.current });
        return edit(
          409,
          { "": `Someone else changed this buyer since you opened the form: it is now at revision ${error.current}, your form was read at ${revision}. Nothing was saved. Open the edit page again to see their change, then make yours.` },
          { conflict: { currentRevision: error.current } },
        );
      }
      if (error instanceof SettingsKeyError) {
        logAction(req, res, "update_buyer", id, "invalid", { fields: ["name"] });
        return edit(422, { name: `Another buyer is called ${checked.buyer.name}: the consent names buyers, so each name is one buyer's.` });
      }
      throw error;
    }
    await applied();
    const changed = saved !== revision;
    logAction(req, res, "update_buyer", id, changed ? "done" : "nothing_to_do", { revision: saved });
    back(req, res, flash, buyerPaths(id).detail, { kind: "success", text: changed ? `Saved ${id} (revision ${saved}).` : `Nothing changed in ${id}.` });
  });

  router.post("/buyers/:id/status", ...post, async (req, res) => {
    const id = buyerIdOf(req);
    const stored = id ? await getBuyer(db.builder, id) : undefined;
    if (!id || !stored) return notFound(req, res, "There is no such buyer.");
    const status = text(formValuesOf(req.body), "status");
    if (!(BUYER_STATUSES as readonly string[]).includes(status)) {
      logAction(req, res, "set_buyer_status", id, "invalid", { status: status.slice(0, 20) });
      return buyerDetail(req, res, 422, id, { flash: { kind: "error", text: "Choose active, paused or archived." } });
    }
    const inFlight = await deliveriesInFlight(db, id);
    // Archiving stops a buyer for good: say what becomes of its deliveries first.
    if (status === "archived" && stored.entry.status !== "archived" && text(formValuesOf(req.body), "confirm") !== "yes") {
      return render(req, res, 200, { page: "buyer-archive", id, name: stored.entry.name, inFlight });
    }
    const revision = await setBuyerStatus(db.builder, id, status as BuyerStatus, actorOf(res));
    await applied();
    const changed = revision !== stored.revision;
    logAction(req, res, "set_buyer_status", id, changed ? "done" : "nothing_to_do", { status, inFlight });
    const inFlightText = inFlight > 0 ? ` Its ${plural(inFlight, "delivery", "deliveries")} in flight will still be sent.` : "";
    const said: Record<BuyerStatus, string> = {
      active: `Resumed ${id}: it is offered leads again.`,
      paused: `Paused ${id}: it is offered no leads until resumed.${inFlightText}`,
      archived: `Archived ${id}: it is offered no more leads.${inFlightText}`,
    };
    back(req, res, flash, buyerPaths(id).detail, changed ? { kind: "success", text: said[status as BuyerStatus] } : { kind: "error", text: `${id} is ${status} already.` });
  });

  router.post("/buyers/:id/rotate-secret", ...post, async (req, res) => {
    const id = buyerIdOf(req);
    const stored = id ? await getBuyer(db.builder, id) : undefined;
    if (!id || !stored) return notFound(req, res, "There is no such buyer.");
    const values = formValuesOf(req.body);
    const raw = text(values, "overlapHours");
    const hours = raw === "" ? DEFAULT_OVERLAP_HOURS : /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(hours >= 0 && hours <= MAX_OVERLAP_HOURS)) {
      logAction(req, res, "rotate_secret", id, "invalid", { fields: ["overlapHours"] });
      return buyerDetail(req, res, 422, id, { rotateError: `Enter whole hours from 0 to ${MAX_OVERLAP_HOURS}.` });
    }
    // The page's revision: a rotation answered by a page (its secret is in it) is posted again by
    // a reload, which would replace the secret just handed over and drop the one still overlapping.
    const revision = text(values, "revision");
    if (revision !== String(stored.revision)) {
      logAction(req, res, "rotate_secret", id, "conflict", { revision: revision.slice(0, 12), current: stored.revision });
      return buyerDetail(req, res, 409, id, {
        rotateError: `This buyer changed since the page was read (it is now at revision ${stored.revision}; a reload posts a rotation again): nothing was rotated. The secret shown last is the one in force; rotate again only if it was not copied.`,
      });
    }
    let rotated: Awaited<ReturnType<typeof rotateBuyerSecret>>;
    try {
      // The revision again in the store's transaction: two rotations posted at once rotate once.
      rotated = await rotateBuyerSecret(db.builder, id, hours, actorOf(res), now(), stored.revision);
    } catch (error) {
      if (!(error instanceof StaleRevisionError)) throw error;
      logAction(req, res, "rotate_secret", id, "conflict", { revision: stored.revision, current: error.current });
      return buyerDetail(req, res, 409, id, {
        rotateError: `This buyer changed while the rotation was asked for (it is now at revision ${error.current}): nothing was rotated by this request. The secret shown last is the one in force.`,
      });
    }
    const { secret, overlapUntil } = rotated;
    await applied();
    logAction(req, res, "rotate_secret", id, "done", { overlapHours: hours });
    return buyerDetail(req, res, 200, id, {
      oneTimeSecret: { secret, reason: "rotated", previousUntil: overlapUntil?.toISOString() ?? null },
      flash: { kind: "success", text: `New secret for ${id}. Copy it now: it is not shown again.` },
    });
  });

  router.post("/buyers/:id/spec", specForm, requireSessionCsrf, ops, async (req, res) => {
    const id = buyerIdOf(req);
    const stored = id ? await getBuyer(db.builder, id) : undefined;
    if (!id || !stored) return notFound(req, res, "There is no such buyer.");
    const values = formValuesOf(req.body);
    const revision = text(values, "revision");
    const checked = checkSpecForm(values, stored.entry);
    if (!checked.ok) {
      const paths = Object.entries(checked.state.errors).flatMap(([stage, problems]) => problems.map((problem) => `${stage}:${problem.path}`.slice(0, 80)));
      logAction(req, res, "update_spec", id, "invalid", { fields: paths.slice(0, 20) });
      return buyerDetail(req, res, 422, id, { specForm: checked.state, flash: { kind: "error", text: "The posting spec was not saved: see the problems beside it." } });
    }
    if (!/^\d{1,9}$/.test(revision)) {
      logAction(req, res, "update_spec", id, "invalid", { fields: ["revision"] });
      return buyerDetail(req, res, 422, id, { specForm: { values: specValues(values, stored.entry.mode), errors: {} }, flash: { kind: "error", text: "This form does not say which version of the buyer it edits: open the buyer's page again." } });
    }
    let saved: number;
    try {
      saved = await updateBuyerSpec(db.builder, id, checked.spec, Number(revision), actorOf(res));
    } catch (error) {
      if (!(error instanceof StaleRevisionError)) throw error;
      logAction(req, res, "update_spec", id, "conflict", { revision: Number(revision), current: error.current });
      return buyerDetail(req, res, 409, id, {
        specForm: { values: specValues(values, stored.entry.mode), errors: {} },
        flash: { kind: "error", text: `Someone else changed this buyer since you opened the page (it is now at revision ${error.current}, your form was read at ${revision}). Nothing was saved: your spec is below; compare it with the one in force, then save again.` },
      });
    }
    await applied();
    const changed = saved !== Number(revision);
    logAction(req, res, "update_spec", id, changed ? "done" : "nothing_to_do", { revision: saved });
    back(req, res, flash, `${buyerPaths(id).detail}#spec-title`, { kind: "success", text: changed ? `Saved the posting spec of ${id} (revision ${saved}).` : `Nothing changed in the posting spec of ${id}.` });
  });

  router.post("/buyers/:id/credentials", ...post, async (req, res) => {
    const id = buyerIdOf(req);
    const stored = id ? await getBuyer(db.builder, id) : undefined;
    if (!id || !stored) return notFound(req, res, "There is no such buyer.");
    const checked = checkCredentialForm(formValuesOf(req.body));
    if (!checked.ok) {
      logAction(req, res, "set_credential", id, "invalid", { fields: Object.keys(checked.state.errors) });
      return buyerDetail(req, res, 422, id, { credentialForm: checked.state });
    }
    // The value is never logged, echoed or put in the flash: only its name, and the page shows its fingerprint.
    const { replaced, revision } = await setBuyerCredential(db.builder, id, checked.name, checked.value, actorOf(res));
    await applied();
    const changed = revision !== stored.revision;
    logAction(req, res, "set_credential", id, changed ? "done" : "nothing_to_do", { credential: checked.name, replaced });
    const said = changed ? `${replaced ? "Replaced" : "Set"} the credential ${checked.name} of ${id}.` : `The credential ${checked.name} of ${id} already had that value.`;
    back(req, res, flash, `${buyerPaths(id).detail}#credentials-title`, { kind: "success", text: said });
  });

  // A test lead to the buyer's real endpoint (issue 43, item 5): what was sent, masked, what came
  // back, and how it was read, in this answer only. Nothing is stored or billed; the log line says
  // who sent one to whom and how it was read, never what was sent or answered.
  router.post("/buyers/:id/test-lead", ...post, async (req, res) => {
    const id = buyerIdOf(req);
    const buyer = id ? current()?.buyers.find((candidate) => candidate.id === id) : undefined;
    if (!id || !buyer) return notFound(req, res, "There is no such buyer.");
    const turn = testLeads.begin(sessionOf(res).name, id, now().getTime());
    if (!turn.ok) {
      logAction(req, res, "send_test_lead", id, "rate_limited");
      res.setHeader("Retry-After", String(turn.retryAfterSeconds));
      return buyerDetail(req, res, 429, id, { flash: { kind: "error", text: `No test lead was sent. ${turn.message}` } });
    }
    let testLead: Awaited<ReturnType<typeof sendTestLead>>;
    try {
      testLead = await sendTestLead(buyer, { now });
    } finally {
      turn.done();
    }
    const stages = Object.fromEntries(testLead.exchanges.map((exchange) => [exchange.stage, exchange.reading.kind]));
    const posted = testLead.exchanges.find((exchange) => exchange.stage === "post");
    logAction(req, res, "send_test_lead", id, "done", { reference: testLead.reference, ...stages, httpStatus: posted?.answer?.status ?? null });
    const last = testLead.exchanges.at(-1)!;
    return buyerDetail(req, res, 200, id, { testLead, flash: { kind: last.reading.kind === "accepted" ? "success" : "error", text: `Test lead ${testLead.reference} sent to ${id}: ${last.reading.text}` } });
  });

  // --- Sources -----------------------------------------------------------------------------------

  router.get(adminPaths.sources, async (req, res) => render(req, res, 200, sourcesView(current())));

  router.get(adminPaths.sourceNew, ops, async (req, res) => {
    if (!settings) return notFound(req, res, "This console runs without business settings.");
    return render(req, res, 200, sourceForm({ mode: "create", values: { floor: "0" }, errors: {} }));
  });

  router.post(adminPaths.sources, ...post, async (req, res) => {
    if (!settings) return notFound(req, res, "This console runs without business settings.");
    const values = formValuesOf(req.body);
    const checked = checkSourceForm(values, { status: "active", outbound, others: (await storedNow()).sources });
    const target = text(values, "sid").slice(0, 40);
    if (!checked.ok) {
      logAction(req, res, "create_source", target, "invalid", { fields: Object.keys(checked.errors) });
      return render(req, res, 422, sourceForm({ mode: "create", values, errors: checked.errors }));
    }
    try {
      await createSource(db.builder, checked.source, actorOf(res));
    } catch (error) {
      if (!(error instanceof SettingsKeyError)) throw error;
      logAction(req, res, "create_source", target, "invalid", { fields: ["sid"] });
      return render(req, res, 422, sourceForm({ mode: "create", values, errors: { sid: `A source with sid ${checked.source.sid} exists already.` } }));
    }
    await applied();
    logAction(req, res, "create_source", checked.source.sid, "done");
    back(req, res, flash, sourcePaths(checked.source.sid).detail, { kind: "success", text: `Created source ${checked.source.sid}.` });
  });

  router.get("/sources/:sid", async (req, res) => {
    const sid = sidOf(req);
    const view = sid ? await sourceDetailView(db, sid) : undefined;
    if (!view) return notFound(req, res, "There is no such source.");
    return render(req, res, 200, view);
  });

  router.get("/sources/:sid/edit", ops, async (req, res) => {
    const sid = sidOf(req);
    const stored = sid ? await getSource(db.builder, sid) : undefined;
    if (!sid || !stored) return notFound(req, res, "There is no such source.");
    return render(req, res, 200, sourceForm({ mode: "edit", key: sid, revision: stored.revision, values: sourceToForm(stored.entry), errors: {} }));
  });

  router.post("/sources/:sid", ...post, async (req, res) => {
    const sid = sidOf(req);
    const stored = sid ? await getSource(db.builder, sid) : undefined;
    if (!sid || !stored) return notFound(req, res, "There is no such source.");
    const values = formValuesOf(req.body);
    const revisionText = text(values, "revision");
    const revision = /^\d{1,9}$/.test(revisionText) ? Number(revisionText) : undefined;
    const edit = (status: number, errors: Record<string, string>, extra: Partial<SourceFormView> = {}) =>
      render(req, res, status, { ...sourceForm({ mode: "edit", key: sid, ...(revision !== undefined ? { revision } : {}), values, errors }), ...extra });
    if (revision === undefined) {
      logAction(req, res, "update_source", sid, "invalid", { fields: ["revision"] });
      return edit(422, { "": "This form does not say which version of the source it edits: open the edit page again." });
    }
    const checked = checkSourceForm(values, { sid, status: stored.entry.status, outbound });
    if (!checked.ok) {
      logAction(req, res, "update_source", sid, "invalid", { fields: Object.keys(checked.errors) });
      return edit(422, checked.errors);
    }
    let saved: number;
    try {
      saved = await updateSource(db.builder, checked.source, revision, actorOf(res));
    } catch (error) {
      if (!(error instanceof StaleRevisionError)) throw error;
      logAction(req, res, "update_source", sid, "conflict", { revision, current: error.current });
      return edit(
        409,
        { "": `Someone else changed this source since you opened the form: it is now at revision ${error.current}, your form was read at ${revision}. Nothing was saved. Open the edit page again to see their change, then make yours.` },
        { conflict: { currentRevision: error.current } },
      );
    }
    await applied();
    const changed = saved !== revision;
    logAction(req, res, "update_source", sid, changed ? "done" : "nothing_to_do", { revision: saved });
    back(req, res, flash, sourcePaths(sid).detail, { kind: "success", text: changed ? `Saved ${sid} (revision ${saved}).` : `Nothing changed in ${sid}.` });
  });

  router.post("/sources/:sid/status", ...post, async (req, res) => {
    const sid = sidOf(req);
    const stored = sid ? await getSource(db.builder, sid) : undefined;
    if (!sid || !stored) return notFound(req, res, "There is no such source.");
    const status = text(formValuesOf(req.body), "status");
    if (!(SOURCE_STATUSES as readonly string[]).includes(status)) {
      logAction(req, res, "set_source_status", sid, "invalid", { status: status.slice(0, 20) });
      const view = await sourceDetailView(db, sid);
      return render(req, res, 422, { ...view!, flash: { kind: "error", text: "Choose active or archived." } });
    }
    const revision = await setSourceStatus(db.builder, sid, status as SourceStatus, actorOf(res));
    await applied();
    const changed = revision !== stored.revision;
    logAction(req, res, "set_source_status", sid, changed ? "done" : "nothing_to_do", { status });
    const said = status === "archived" ? `Archived ${sid}: its leads get no payout, no floor and no postbacks from now on.` : `Restored ${sid}.`;
    back(req, res, flash, sourcePaths(sid).detail, changed ? { kind: "success", text: said } : { kind: "error", text: `${sid} is ${status} already.` });
  });

  return router;
}
