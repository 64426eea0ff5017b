/**
 * When a lead's checks run, and what they decide (issue 44, docs/lead-checks.md). Like
 * LeadConduit's steps and Phonexa's iClear, a check costs money and time, so:
 * - it runs only when a buyer that could take the lead requires it (gate() is asked with the
 *   buyers about to be pinged or posted to; a buyer without requirements costs nothing at all);
 * - at most once per lead: a row in lead_checks is claimed before the call (across replicas), and
 *   calls for the same lead in this process share one promise; only an `unavailable` answer is
 *   asked again;
 * - an answer about a phone (scrubs, line type) is reused for CHECK_CACHE_DAYS;
 * - a lead's checks run in parallel, each within its own timeout (CHECK_TIMEOUT_MS);
 * - never inside a visitor's request: the auction (before a ping) and the delivery worker (before
 *   a post) ask, in the background process.
 * A provider down or slow loses nothing: its answer is `unavailable`, the buyers that require it are
 * skipped (or their posts wait, by their setting) and the reason is recorded.
 */
import type { Logger } from "pino";
import type { Database } from "../db/database";
import type { LeadRecord } from "../db/leads";
import { leadCheckRepository, type CachedAnswer, type FinishedCheck, type StoredCheck } from "../db/lead-checks";
import { leadCheckDuration, leadChecksTotal } from "../metrics";
import { hashContact } from "../privacy/suppression";
import { normalizeUsPhone } from "../../shared/contact";
import type { Buyer } from "../delivery/buyers";
import { checksNeeded, requiresAnything, verdict, type Gate, type LocalFacts, type Stage } from "./requirements";
import { checkCertUrl, LEADID_TOKEN } from "./providers";
import type { CheckAnswer, CheckInput, CheckKind, CheckProvider } from "./types";

export interface LeadChecksOptions {
  db: Database;
  /** The configured providers (server/checks/providers/): a kind without one is "not configured". */
  providers: ReadonlyMap<CheckKind, CheckProvider>;
  /** TRUSTEDFORM_CERT_ORIGIN: the only origin a certificate URL may have. */
  certOrigin: string;
  timeoutMs: number;
  /** CHECK_CACHE_DAYS (0: phone answers are not reused). */
  cacheDays: number;
  logger: Logger;
  now?: () => Date;
}

export interface LeadChecks {
  /**
   * Each buyer's verdict for this lead at this stage ("ping": before its ping, checks without
   * contact details only; "post": before its post, every check), running the checks the buyers
   * with requirements need first. A buyer without requirements always passes.
   */
  gate(lead: LeadRecord, buyers: readonly Buyer[], stage: Stage): Promise<Map<string, Gate>>;
  /**
   * Starts gate() without waiting for it (the auction, for its winners, as their posts are queued):
   * the delivery worker's gate then shares the calls in flight. A failure is logged; the post's own
   * gate asks again.
   */
  prefetch(lead: LeadRecord, buyers: readonly Buyer[], stage: Stage): void;
  /** The lead's recorded checks (the lead's page). */
  recorded(reference: string): Promise<StoredCheck[]>;
}

const DAY_MS = 86_400_000;
/** Definite answers kept in memory per process (a few hundred bytes each): the leads of the last minutes at a busy site's rate. */
const SETTLED_MAX = 20_000;
/** How often a check another replica is running is looked at again. */
const OTHERS_POLL_MS = 50;

/** What the providers are given: the lead as the checks need it. */
export function checkInput(lead: LeadRecord): CheckInput {
  return {
    reference: lead.reference,
    // Stored as E.164 (+1XXXXXXXXXX): the providers take the ten digits. One that is not a US number stays as it is, and fails.
    phone: normalizeUsPhone(lead.phone)?.slice(2) ?? lead.phone,
    email: lead.email,
    state: lead.state,
    trustedFormCertUrl: lead.consent?.trustedFormCertUrl ?? null,
    leadidToken: lead.consent?.leadidToken ?? null,
  };
}

function fromStored(check: StoredCheck): CheckAnswer {
  return { status: check.status === "running" ? "unavailable" : check.status, outcome: check.outcome ?? "unknown", detail: check.detail ?? "", latencyMs: check.latencyMs ?? 0 };
}

/** The lead's certificate URL and token, checked without a call (a visitor can send any string). */
function localFacts(input: CheckInput, certOrigin: string): LocalFacts {
  const certificate = checkCertUrl(input.trustedFormCertUrl, certOrigin);
  const token = input.leadidToken;
  return {
    certificateProblem: certificate.ok ? undefined : certificate.detail,
    tokenProblem: !token ? "no LeadiD token came with the lead" : LEADID_TOKEN.test(token) ? undefined : "the LeadiD token is not a 36-character upper-case GUID",
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createLeadChecks(options: LeadChecksOptions): LeadChecks {
  const { db, providers, timeoutMs, logger } = options;
  const now = options.now ?? (() => new Date());
  const repository = leadCheckRepository(db.builder);
  const log = logger.child({ component: "checks" });
  /** Calls in flight in this process, by lead reference and kind: a second asker shares the first's answer. */
  const inflight = new Map<string, Promise<CheckAnswer>>();
  /**
   * Definite answers (ok, failed) this process got or read lately, by lead reference and kind: the
   * post after a ping, a second winner's post and a cascade's read them without a statement (an
   * answer never changes once definite). The oldest are forgotten past SETTLED_MAX.
   */
  const settled = new Map<string, CheckAnswer>();
  const remember = (key: string, answer: CheckAnswer) => {
    if (answer.status === "unavailable") return;
    settled.delete(key);
    settled.set(key, answer);
    if (settled.size > SETTLED_MAX) settled.delete(settled.keys().next().value!);
  };

  /** A provider's answer within the timeout even if the adapter overruns it (an adapter never should). */
  async function call(provider: CheckProvider, input: CheckInput): Promise<CheckAnswer> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<CheckAnswer>((resolve) => {
      timer = setTimeout(() => resolve({ status: "unavailable", outcome: "timeout", detail: `no answer within ${timeoutMs} ms`, latencyMs: timeoutMs }), timeoutMs + 100);
    });
    try {
      return await Promise.race([
        provider.run(input, timeoutMs).catch((error: unknown): CheckAnswer => ({ status: "unavailable", outcome: "error", detail: error instanceof Error ? error.message.slice(0, 200) : "the adapter failed", latencyMs: 0 })),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for a check another replica claimed, up to a timeout's length; then it counts as unavailable. */
  async function awaitOthers(reference: string, kind: CheckKind): Promise<CheckAnswer> {
    const until = Date.now() + timeoutMs + 1_000;
    while (Date.now() < until) {
      await sleep(OTHERS_POLL_MS);
      const [check] = await repository.of(reference, [kind]);
      if (check && check.status !== "running") return fromStored(check);
    }
    return { status: "unavailable", outcome: "running_elsewhere", detail: "another worker is still running this check", latencyMs: 0 };
  }

  /** Runs (or reads) the lead's checks of these kinds, all at once; one answer per kind. */
  async function run(lead: LeadRecord, kinds: readonly CheckKind[]): Promise<Map<CheckKind, CheckAnswer>> {
    const at = now();
    const input = checkInput(lead);
    const wanted = kinds.map((kind) => ({ kind, provider: providers.get(kind)! }));
    const phoneHash = hashContact({ phone: lead.phone }).find((hash) => hash.kind === "phone")?.hash;
    const cacheable = options.cacheDays > 0 && phoneHash ? wanted.filter(({ provider }) => provider.cachedByPhone) : [];
    // The claim and the phone cache at once: one round trip before the calls, not two.
    const [claimed, hits] = await Promise.all([
      repository.claim(lead.reference, wanted.map(({ kind, provider }) => ({ kind, provider: provider.name })), at, new Date(at.getTime() - timeoutMs - 30_000)),
      cacheable.length > 0 ? repository.cached(phoneHash!, cacheable.map(({ kind }) => kind), at) : Promise.resolve(new Map<string, CachedAnswer>()),
    ]);
    const answers = new Map<CheckKind, CheckAnswer>();
    const others = wanted.filter(({ kind }) => !claimed.has(kind));
    if (others.length > 0) {
      const stored = new Map((await repository.of(lead.reference, others.map(({ kind }) => kind))).map((check) => [check.kind, check]));
      await Promise.all(
        others.map(async ({ kind }) => {
          const check = stored.get(kind);
          answers.set(kind, check && check.status !== "running" ? fromStored(check) : await awaitOthers(lead.reference, kind));
        }),
      );
    }
    const mine = wanted.filter(({ kind }) => claimed.has(kind));
    if (mine.length === 0) return answers;

    const finished: FinishedCheck[] = await Promise.all(
      mine.map(async ({ kind, provider }): Promise<FinishedCheck> => {
        const hit = hits.get(kind);
        if (hit && hit.provider === provider.name) return { kind, provider: provider.name, status: hit.status, outcome: hit.outcome, detail: hit.detail, latencyMs: 0, cached: true, called: false };
        const answer = await call(provider, input);
        leadCheckDuration.observe({ provider: provider.name }, answer.latencyMs / 1000);
        return { kind, provider: provider.name, ...answer, cached: false, called: answer.latencyMs > 0 || answer.status === "ok" };
      }),
    );
    const done = now();
    const fresh = finished.filter((check) => !check.cached && check.status !== "unavailable" && providers.get(check.kind as CheckKind)?.cachedByPhone);
    // The lead's record and the phone's cache at once: one round trip after the calls.
    await Promise.all([
      repository.finish(lead.reference, finished, done),
      phoneHash && options.cacheDays > 0 && fresh.length > 0
        ? repository.remember(
            phoneHash,
            fresh.map((check) => ({ kind: check.kind, provider: check.provider, status: check.status as "ok" | "failed", outcome: check.outcome, detail: check.detail, checkedAt: done })),
            new Date(done.getTime() + options.cacheDays * DAY_MS),
          )
        : undefined,
    ]);
    for (const check of finished) {
      answers.set(check.kind as CheckKind, { status: check.status, outcome: check.outcome, detail: check.detail, latencyMs: check.latencyMs });
      leadChecksTotal.inc({ provider: check.provider, kind: check.kind, status: check.status, outcome: check.outcome, cached: String(check.cached) });
      const line = { event: "lead_check", reference: lead.reference, kind: check.kind, provider: check.provider, status: check.status, outcome: check.outcome, latencyMs: check.latencyMs, cached: check.cached };
      if (check.status === "unavailable") log.warn({ ...line, detail: check.detail }, "lead check had no answer");
      else log.info(line, "lead check answered");
    }
    return answers;
  }

  /** The answers for these kinds, sharing calls already in flight in this process. */
  async function answersFor(lead: LeadRecord, kinds: readonly CheckKind[]): Promise<Map<CheckKind, CheckAnswer | undefined>> {
    const result = new Map<CheckKind, CheckAnswer | undefined>();
    const configured = kinds.filter((kind) => providers.has(kind));
    for (const kind of kinds) if (!providers.has(kind)) result.set(kind, undefined);
    for (const kind of configured) {
      const known = settled.get(`${lead.reference}:${kind}`);
      if (known) result.set(kind, known);
    }
    const missing = configured.filter((kind) => !result.has(kind) && !inflight.has(`${lead.reference}:${kind}`));
    if (missing.length > 0) {
      const batch = run(lead, missing);
      for (const kind of missing) {
        const key = `${lead.reference}:${kind}`;
        const one = batch.then((answers) => {
          const answer = answers.get(kind)!;
          remember(key, answer);
          return answer;
        });
        inflight.set(key, one);
        // Forgotten once settled: later askers read the stored answer (or claim an unavailable one again).
        void one.then(
          () => inflight.delete(key),
          () => inflight.delete(key),
        );
      }
    }
    await Promise.all(configured.filter((kind) => !result.has(kind)).map(async (kind) => result.set(kind, await inflight.get(`${lead.reference}:${kind}`)!)));
    return result;
  }

  async function gate(lead: LeadRecord, buyers: readonly Buyer[], stage: Stage): Promise<Map<string, Gate>> {
    const gates = new Map<string, Gate>();
    const demanding = buyers.filter((buyer) => requiresAnything(buyer.requirements));
    for (const buyer of buyers) if (!demanding.includes(buyer)) gates.set(buyer.id, { pass: true });
    if (demanding.length === 0) return gates;
    const kinds = [...new Set(demanding.flatMap((buyer) => checksNeeded(buyer.requirements, stage)))];
    const answers = kinds.length > 0 ? await answersFor(lead, kinds) : new Map<CheckKind, CheckAnswer | undefined>();
    const input = checkInput(lead);
    const local = localFacts(input, options.certOrigin);
    for (const buyer of demanding) gates.set(buyer.id, verdict(buyer.requirements, stage, local, answers));
    return gates;
  }

  return {
    gate,
    prefetch(lead, buyers, stage) {
      gate(lead, buyers, stage).catch((error: unknown) => log.warn({ err: error, event: "lead_check_error", reference: lead.reference }, "lead checks could not start ahead of the post; the post asks again"));
    },
    recorded: (reference) => repository.of(reference),
  };
}
