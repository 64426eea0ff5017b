/**
 * The visitor an experiment assigns (issue 45, docs/experiments.md, "Assignment and exposure"): a
 * first-party id in the qr_vis cookie, minted the first time a running experiment applies to a
 * page or form the visitor opens, and the variants it falls in (server/experiments/assign.ts).
 *
 * No id, no cookie and the control for a visitor who asked not to be tracked: Global Privacy
 * Control (Sec-GPC: 1; a cookie set before is expired). The site has no other per-browser opt-out
 * to honour: a "Do Not Sell" request is kept against the person's email and phone
 * (server/privacy/suppression.ts), which a page view does not carry. Crawlers and scripts (isbot)
 * get the control and no cookie either: they would only dilute the results, which leave bots out
 * as the report does.
 *
 * Shared by the landing page (server/pages/render.ts) and the quote form's session
 * (server/api/leads.ts): both call visitorFor, so a visitor holds one id across them.
 */
import type { Application, Request, Response } from "express";
import { serialize } from "cookie";
import { hasGpc } from "../http/gpc";
import { isBotUserAgent } from "../http/bot-agent";
import { randomFillSync } from "node:crypto";
import { assign, VISITOR_ID_PATTERN } from "./assign";
import { knobsOf, type Experiment } from "./schema";
import { controlKnobs, EXPERIMENT_COOKIE, EXPERIMENT_COOKIE_DAYS, KNOBS, type Assignment, type ExperimentSurface, type Knobs } from "../../shared/experiments";

export interface ExperimentsOptions {
  /** The experiments in the live settings (`settings().experiments`); read per request, so a stop takes effect at once. */
  running(): readonly Experiment[];
  /** Whether the cookie is Secure: in production (behind TLS at the balancer), whatever the hop to us says. */
  secureCookie: boolean;
  /** The clock (tests move it). */
  now?: () => Date;
}

export interface Visitor {
  /** The qr_vis id; undefined when none applies (no running experiment here, GPC, a bot). */
  visitorId: string | undefined;
  /** Its variant in each running experiment of the surface (empty: the control everywhere). */
  assignments: Assignment[];
  /** Every knob's value for this visitor: the control's, with its variants' values over them. */
  knobs: Knobs;
  /** Whether the request is a crawler's or a script's. */
  bot: boolean;
}

const apps = new WeakMap<Application, ExperimentsOptions>();

/** createApp registers the live experiments; an app without them runs none (everyone the control). */
export function attachExperiments(app: Application, options: ExperimentsOptions): void {
  apps.set(app, options);
}

/** Whether the live settings hold any experiment: the pages' fast path asks this first, and without one does nothing else. */
export function anyExperiments(req: Request): boolean {
  return (apps.get(req.app)?.running().length ?? 0) > 0;
}

/**
 * The running experiments that change this surface for a visitor from `sid`, whoever the visitor
 * is: when there are none, the page is the same for everyone (no cookie is read or set). An app
 * without experiments, or with none in its settings, returns at once.
 */
export function experimentsOn(req: Request, surface: ExperimentSurface, sid: string | undefined): readonly Experiment[] {
  const options = apps.get(req.app);
  const running = options?.running();
  if (!options || !running || running.length === 0) return [];
  const now = (options.now?.() ?? new Date()).getTime();
  const found: Experiment[] = [];
  for (const entry of compiled(running)) {
    if (entry.surfaces.has(surface) && now >= entry.start && now < entry.stop && (!entry.sids || (sid !== undefined && entry.sids.has(sid)))) found.push(entry.experiment);
  }
  return found;
}

/** An experiment as each request asks of it (assign.ts, appliesTo, says the same; tests hold them together). */
interface Compiled {
  experiment: Experiment;
  start: number;
  stop: number;
  sids: ReadonlySet<string> | undefined;
  surfaces: ReadonlySet<ExperimentSurface>;
}

/**
 * Each settings list's experiments, worked out once: the list is the same array until the
 * settings change, and every landing page request asks (parsing dates and listing knobs per
 * request cost ad clicks measurably; docs/experiments.md, "Cost").
 */
const compiledLists = new WeakMap<readonly Experiment[], Compiled[]>();
function compiled(list: readonly Experiment[]): Compiled[] {
  let entries = compiledLists.get(list);
  if (!entries) {
    entries = list
      .filter((experiment) => experiment.status === "running")
      .map((experiment) => ({
        experiment,
        start: Date.parse(experiment.startAt),
        stop: experiment.stopAt ? Date.parse(experiment.stopAt) : Infinity,
        sids: experiment.sids ? new Set(experiment.sids) : undefined,
        surfaces: new Set([...knobsOf(experiment)].map((knob) => KNOBS[knob].surface)),
      }));
    compiledLists.set(list, entries);
  }
  return entries;
}

/** The Set-Cookie value holding a visitor id: first-party, HttpOnly (no script reads it), SameSite=Lax (kept on the ad click's top-level navigation), 90 days. */
export function experimentCookie(visitorId: string, secure: boolean): string {
  // The attributes are the same for every visitor: serialized once, then joined to the id (a
  // base64url id needs no encoding). Serializing per new visitor was 1% of a click's CPU.
  return `${EXPERIMENT_COOKIE}=${visitorId}${secure ? SECURE_ATTRIBUTES : PLAIN_ATTRIBUTES}`;
}
const attributesOf = (secure: boolean) => serialize(EXPERIMENT_COOKIE, "", { httpOnly: true, sameSite: "lax", path: "/", secure, maxAge: EXPERIMENT_COOKIE_DAYS * 24 * 60 * 60 }).slice(EXPERIMENT_COOKIE.length + 1);
const SECURE_ATTRIBUTES = attributesOf(true);
const PLAIN_ATTRIBUTES = attributesOf(false);

/**
 * A new visitor id in assign.ts's format (newVisitorId: 128 random bits, base64url), drawn from a
 * pool of random bytes refilled 256 ids at a time: a synchronous draw of 16 bytes per new visitor
 * was 1.4% of a click's CPU. The bytes are still crypto's.
 */
const POOL_IDS = 256;
const pool = Buffer.alloc(16 * POOL_IDS);
let poolNext = POOL_IDS;
function mintVisitorId(): string {
  if (poolNext === POOL_IDS) {
    randomFillSync(pool);
    poolNext = 0;
  }
  const start = 16 * poolNext;
  poolNext += 1;
  return pool.toString("base64url", start, start + 16);
}

/** The Set-Cookie value that removes the cookie (a visitor who has since turned GPC on). */
export function expiredExperimentCookie(secure: boolean): string {
  return serialize(EXPERIMENT_COOKIE, "", { httpOnly: true, sameSite: "lax", path: "/", secure, maxAge: 0 });
}

const COOKIE_PREFIX = `${EXPERIMENT_COOKIE}=`;

/** The request's qr_vis cookie when it holds a valid id (read without parsing every cookie: most requests have none). */
function cookieVisitorId(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const start = header.startsWith(COOKIE_PREFIX) ? 0 : header.indexOf(`; ${COOKIE_PREFIX}`) + 2;
  if (start === 1) return undefined;
  const value = header.slice(start + COOKIE_PREFIX.length).split(";", 1)[0]!.trim();
  return VISITOR_ID_PATTERN.test(value) ? value : undefined;
}

/**
 * What a request has been told, kept on the request itself: the id minted for it (its response
 * sets the cookie, and its own events carry the id too) and its answer per surface (asking twice
 * neither mints twice nor sets two cookies). A property, not a WeakMap keyed by requests: every
 * landing page request would add an ephemeron for the garbage collector to trace, which cost ad
 * clicks measurably (docs/experiments.md, "Cost").
 */
const STATE = Symbol("experiments");
interface RequestState {
  minted?: string;
  landing?: Visitor;
  form?: Visitor;
}
type WithState = Request & { [STATE]?: RequestState };
function stateOf(req: Request): RequestState {
  const holder = req as WithState;
  return (holder[STATE] ??= {});
}

/**
 * The experiments' visitor id of a request, for its funnel events and its lead: the cookie's (or
 * the one minted for this response), never with GPC.
 */
export function visitorIdOf(req: Request): string | undefined {
  const id = (req as WithState)[STATE]?.minted ?? cookieVisitorId(req);
  return id !== undefined && !hasGpc(req) ? id : undefined;
}

/**
 * The visitor's variants on a surface: reads the cookie, mints an id (and sets the cookie on `res`)
 * when a running experiment applies to this visitor's source and there is none yet. Everyone else
 * gets the control's knobs and no cookie.
 */
export function visitorFor(req: Request, res: Response, { surface, sid }: { surface: ExperimentSurface; sid?: string | undefined }): Visitor {
  const state = stateOf(req);
  return (state[surface] ??= decide(req, res, surface, sid));
}

function decide(req: Request, res: Response, surface: ExperimentSurface, sid: string | undefined): Visitor {
  const bot = isBotUserAgent(req.get("user-agent") ?? "");
  const control: Visitor = { visitorId: undefined, assignments: [], knobs: controlKnobs(), bot };
  const options = apps.get(req.app);
  if (!options) return control;
  if (hasGpc(req)) {
    // The choice applies to what was stored before it too: the id is forgotten by the browser.
    if (cookieVisitorId(req) !== undefined && !res.headersSent) res.append("Set-Cookie", expiredExperimentCookie(options.secureCookie));
    return control;
  }
  if (bot) return control;
  const experiments = experimentsOn(req, surface, sid);
  if (experiments.length === 0) return control;
  let visitorId = stateOf(req).minted ?? cookieVisitorId(req);
  if (visitorId === undefined) {
    visitorId = mintVisitorId();
    stateOf(req).minted = visitorId;
    res.append("Set-Cookie", experimentCookie(visitorId, options.secureCookie));
  }
  return { visitorId, ...assign(experiments, visitorId), bot };
}
