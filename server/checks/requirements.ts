/**
 * A buyer's requirements (issue 44): what a lead must have passed before it is pinged or posted to
 * that buyer. Part of the buyer's settings (server/delivery/buyers.ts), so the console, the buyers
 * file and the import validate them alike. The verdict for one buyer from the lead's check answers
 * is here; when the checks run is the engine's (engine.ts).
 */
import { z } from "zod";
import { LINE_TYPES, type CheckAnswer, type CheckKind } from "./types";

const requirementFields = z
  .object({
    /**
     * "retained": we retain the lead's TrustedForm certificate (v4 API, our account) before the
     * post; "certificate": the lead must carry a certificate URL on TrustedForm's host, which the
     * buyer claims itself (map the fact consent.trustedFormCertUrl in its spec, or read it from our JSON).
     */
    trustedForm: z.enum(["retained", "certificate"]).optional(),
    /** "authentic": Jornaya's Authenticate says the LeadiD token is; "token": a token of the right shape is enough. */
    leadid: z.enum(["authentic", "token"]).optional(),
    /** The phone is not on the TCPA litigator list. */
    litigatorClean: z.boolean().optional(),
    /** The phone is on neither the federal nor its state's Do Not Call list. */
    noDnc: z.boolean().optional(),
    /** The phone's line type is one of these (Twilio Lookup's line type intelligence). */
    lineTypes: z.array(z.enum(LINE_TYPES)).min(1).optional(),
    /** When a check it needs has no answer (provider down or slow): skip this buyer (default), or let the post wait and try again. */
    whenUnavailable: z.enum(["skip", "wait"]).optional(),
  })
  .strict();
/** The requirements as stored (the schema's type, before its cross-field rule). */
export type Requirements = z.infer<typeof requirementFields>;

export const requirementsSchema = requirementFields
  // Waiting is for an answer from a provider: a certificate URL's or a token's shape is read from
  // the lead itself, so a buyer requiring only those (or nothing) would never be waited for.
  .refine((requirements) => requirements.whenUnavailable !== "wait" || checksNeeded(requirements, "post").length > 0, {
    message:
      "Waiting is for a check a provider answers (TrustedForm retained by us, an authentic LeadiD, the litigator list, Do Not Call, line types), and this buyer requires none: require one, or choose Skip this buyer.",
    path: ["whenUnavailable"],
  });

export type Stage = "ping" | "post";

/** The provider checks a buyer's requirements need at a stage: before a ping only those without contact details. */
export function checksNeeded(requirements: Requirements | undefined, stage: Stage): CheckKind[] {
  if (!requirements) return [];
  const kinds: CheckKind[] = [];
  if (requirements.leadid === "authentic") kinds.push("jornaya");
  if (stage === "ping") return kinds;
  if (requirements.trustedForm === "retained") kinds.push("trustedform");
  if (requirements.litigatorClean) kinds.push("litigator");
  if (requirements.noDnc) kinds.push("dnc");
  if (requirements.lineTypes) kinds.push("line_type");
  return kinds;
}

/** Whether the requirements ask for anything at all. */
export function requiresAnything(requirements: Requirements | undefined): boolean {
  return requirements !== undefined && (requirements.trustedForm !== undefined || requirements.leadid !== undefined || requirements.litigatorClean === true || requirements.noDnc === true || requirements.lineTypes !== undefined);
}

/** The lead's own values, checked without a call: whether its certificate URL and token have the right shape (undefined: fine). */
export interface LocalFacts {
  certificateProblem: string | undefined;
  tokenProblem: string | undefined;
}

export type Gate =
  | { pass: true }
  /** `wait`: a check it needs had no answer and the buyer waits for one (its post is tried again later). */
  | { pass: false; wait: boolean; requirement: string; reason: string };

const LABEL: Record<CheckKind, string> = {
  trustedform: "a retained TrustedForm certificate",
  jornaya: "an authentic LeadiD",
  litigator: "a clean litigator check",
  dnc: "no DNC match",
  line_type: "a line type it takes",
};

/**
 * One buyer's verdict at a stage, from the lead's local facts and its check answers (undefined:
 * the check's provider is not configured). The first unmet requirement is the reason.
 */
export function verdict(requirements: Requirements | undefined, stage: Stage, local: LocalFacts, answers: ReadonlyMap<CheckKind, CheckAnswer | undefined>): Gate {
  if (!requirements) return { pass: true };
  if (requirements.trustedForm === "certificate" && local.certificateProblem) {
    return { pass: false, wait: false, requirement: "trustedform", reason: `requires a TrustedForm certificate: ${local.certificateProblem}` };
  }
  if (requirements.leadid === "token" && local.tokenProblem) return { pass: false, wait: false, requirement: "jornaya", reason: `requires a LeadiD token: ${local.tokenProblem}` };
  const wait = requirements.whenUnavailable === "wait";
  for (const kind of checksNeeded(requirements, stage)) {
    const answer = answers.get(kind);
    if (!answer) return { pass: false, wait: false, requirement: kind, reason: `requires ${LABEL[kind]}, but no ${kind} provider is configured` };
    if (answer.status === "unavailable") return { pass: false, wait, requirement: kind, reason: `requires ${LABEL[kind]}; the check had no answer (${answer.outcome})${wait ? ": waiting" : ""}` };
    if (answer.status === "failed") return { pass: false, wait: false, requirement: kind, reason: `requires ${LABEL[kind]}; the check failed (${answer.outcome})` };
    if (!passes(requirements, kind, answer.outcome)) return { pass: false, wait: false, requirement: kind, reason: `requires ${LABEL[kind]}; the answer was ${answer.outcome}` };
  }
  return { pass: true };
}

function passes(requirements: Requirements, kind: CheckKind, outcome: string): boolean {
  switch (kind) {
    case "trustedform":
      return outcome === "retained";
    case "jornaya":
      return outcome === "authentic";
    case "litigator":
    case "dnc":
      return outcome === "clean";
    case "line_type":
      return (requirements.lineTypes as readonly string[] | undefined)?.includes(outcome) ?? true;
  }
}
