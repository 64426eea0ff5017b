/**
 * Lead checks and buyers' requirements (issue 44) in the console's words: one place for what the
 * buyer form's fieldset calls each requirement, how the buyer's page and its history say a
 * requirement's value, and how a lead's "Checks" section names each recorded check. The rules
 * themselves (what passes, when a check runs) are server/checks/'s; this only translates.
 */
import type { Requirements } from "../checks/requirements";
import type { CheckKind, LineType } from "../checks/types";
import type { StoredCheck, StoredCheckStatus } from "../db/lead-checks";
import type { LeadCheckView } from "../../shared/admin-views";

/** Each check kind as ops name it; a kind a later release adds shows as stored. */
export const CHECK_KIND_WORDS: Record<CheckKind, string> = {
  trustedform: "TrustedForm certificate",
  jornaya: "LeadiD",
  litigator: "TCPA litigator",
  dnc: "Do Not Call",
  line_type: "Line type",
};

export const LINE_TYPE_WORDS: Record<LineType, string> = {
  mobile: "mobile",
  landline: "landline",
  fixedVoip: "fixed VoIP",
  nonFixedVoip: "non-fixed VoIP",
};

const STATUS_WORDS: Record<StoredCheckStatus, string> = {
  running: "running",
  ok: "answered",
  failed: "failed",
  unavailable: "no answer",
};

type RequirementKey = keyof Requirements;

/**
 * Each requirement's label (the form's) and its values in words, in the form's order. `undefined`
 * is "not required", which the buyer's page and the history say as `none`.
 */
export const REQUIREMENT_WORDS: { [Key in RequirementKey]-?: { label: string; value: (value: NonNullable<Requirements[Key]>) => string } } = {
  trustedForm: { label: "TrustedForm", value: (value) => (value === "retained" ? "we retain the certificate" : "the buyer claims it: a certificate URL is enough") },
  leadid: { label: "LeadiD", value: (value) => (value === "authentic" ? "authentic" : "a token is enough") },
  litigatorClean: { label: "Phone not on the TCPA litigator list", value: (value) => (value ? "yes" : "no") },
  noDnc: { label: "Phone on no Do Not Call list (federal and the lead's state)", value: (value) => (value ? "yes" : "no") },
  lineTypes: { label: "Line types", value: (value) => value.map((type) => LINE_TYPE_WORDS[type]).join(", ") },
  whenUnavailable: { label: "When a check has no answer", value: (value) => (value === "wait" ? "wait and try again" : "skip this buyer") },
};
export const REQUIREMENT_KEYS = Object.keys(REQUIREMENT_WORDS) as RequirementKey[];

/** One requirement's value in words; undefined when it is not set. A stored value the words do not know (an older or newer file) is said as it is. */
export function requirementValueWords(key: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!(REQUIREMENT_KEYS as string[]).includes(key)) return Array.isArray(value) ? value.map(String).join(", ") : String(value);
  const words = REQUIREMENT_WORDS[key as RequirementKey] as { value: (value: unknown) => string };
  try {
    return words.value(value);
  } catch {
    // A history entry is read as stored: a value of another shape is told as it is rather than failing the page.
    return JSON.stringify(value);
  }
}

/** A buyer's requirements as one line per requirement set ("TrustedForm: we retain the certificate"); empty when none is. */
export function requirementLines(requirements: Requirements | undefined): string[] {
  if (!requirements) return [];
  const lines: string[] = [];
  for (const key of REQUIREMENT_KEYS) {
    const value = requirements[key];
    if (value === undefined) continue;
    // The two flags read as the requirement itself (false asks nothing, so it is not listed).
    if (key === "litigatorClean" || key === "noDnc") {
      if (value === true) lines.push(REQUIREMENT_WORDS[key].label);
      continue;
    }
    lines.push(`${REQUIREMENT_WORDS[key].label}: ${requirementValueWords(key, value) ?? ""}`);
  }
  return lines;
}

const isKind = (kind: string): kind is CheckKind => Object.hasOwn(CHECK_KIND_WORDS, kind);

/** An outcome's machine word for people: underscores as spaces, a line type as the form names it. */
function outcomeWords(kind: string, outcome: string | null): string | null {
  if (outcome === null) return null;
  if (kind === "line_type" && Object.hasOwn(LINE_TYPE_WORDS, outcome)) return LINE_TYPE_WORDS[outcome as LineType];
  return outcome.replace(/_/g, " ");
}

/** One recorded check as the lead's page shows it. Nothing in a check is contact data (its detail never carries a phone or email), so ops and analysts see the same. */
export function leadCheckView(check: StoredCheck): LeadCheckView {
  return {
    kind: check.kind,
    kindText: isKind(check.kind) ? CHECK_KIND_WORDS[check.kind] : check.kind,
    provider: check.provider,
    status: check.status,
    statusText: STATUS_WORDS[check.status],
    outcome: check.outcome,
    outcomeText: outcomeWords(check.kind, check.outcome),
    detail: check.detail,
    latencyMs: check.latencyMs,
    cached: check.cached,
    calls: check.calls,
    startedAt: check.startedAt.toISOString(),
    finishedAt: check.finishedAt?.toISOString() ?? null,
  };
}
