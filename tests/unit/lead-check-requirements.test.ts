/**
 * A buyer's requirements (issue 44, server/checks/requirements.ts): which checks each stage needs
 * (before a ping only those without contact details), the verdict from the answers, and the schema's
 * one cross-field rule.
 */
import { describe, expect, it } from "vitest";
import { checksNeeded, requiresAnything, requirementsSchema, verdict, type LocalFacts, type Requirements } from "../../server/checks/requirements";
import type { CheckAnswer, CheckKind } from "../../server/checks/types";

const FINE: LocalFacts = { certificateProblem: undefined, tokenProblem: undefined };
const answer = (status: CheckAnswer["status"], outcome: string): CheckAnswer => ({ status, outcome, detail: outcome, latencyMs: 10 });
const answers = (entries: Partial<Record<CheckKind, CheckAnswer>>) => new Map(Object.entries(entries) as [CheckKind, CheckAnswer][]);

describe("a buyer's requirements", () => {
  it("needs only the checks without contact details before a ping, and every one before a post", () => {
    const all: Requirements = { trustedForm: "retained", leadid: "authentic", litigatorClean: true, noDnc: true, lineTypes: ["mobile"] };
    expect(checksNeeded(all, "ping")).toEqual(["jornaya"]);
    expect(checksNeeded(all, "post")).toEqual(["jornaya", "trustedform", "litigator", "dnc", "line_type"]);
    // Shapes are read from the lead: no provider call at either stage.
    expect(checksNeeded({ trustedForm: "certificate", leadid: "token" }, "post")).toEqual([]);
    expect(checksNeeded(undefined, "post")).toEqual([]);
    expect(requiresAnything({})).toBe(false);
    expect(requiresAnything({ litigatorClean: false })).toBe(false);
    expect(requiresAnything({ leadid: "token" })).toBe(true);
  });

  it("passes only on the answer each requirement asks for", () => {
    const required: Requirements = { litigatorClean: true, noDnc: true, lineTypes: ["mobile", "nonFixedVoip"] };
    expect(verdict(required, "post", FINE, answers({ litigator: answer("ok", "clean"), dnc: answer("ok", "clean"), line_type: answer("ok", "nonFixedVoip") }))).toEqual({ pass: true });
    expect(verdict(required, "post", FINE, answers({ litigator: answer("ok", "listed"), dnc: answer("ok", "clean"), line_type: answer("ok", "mobile") }))).toEqual({
      pass: false,
      wait: false,
      requirement: "litigator",
      reason: "requires a clean litigator check; the answer was listed",
    });
    expect(verdict(required, "post", FINE, answers({ litigator: answer("ok", "clean"), dnc: answer("ok", "dnc_match"), line_type: answer("ok", "mobile") }))).toMatchObject({ pass: false, requirement: "dnc" });
    expect(verdict(required, "post", FINE, answers({ litigator: answer("ok", "clean"), dnc: answer("ok", "clean"), line_type: answer("ok", "landline") }))).toMatchObject({ pass: false, requirement: "line_type" });
    expect(verdict({ trustedForm: "retained" }, "post", FINE, answers({ trustedform: answer("failed", "no_match") }))).toMatchObject({ pass: false, reason: "requires a retained TrustedForm certificate; the check failed (no_match)" });
    expect(verdict({ leadid: "authentic" }, "ping", FINE, answers({ jornaya: answer("ok", "authentic") }))).toEqual({ pass: true });
  });

  it("waits on a check with no answer only when the buyer says so, never on a definite no", () => {
    const down = answers({ litigator: answer("unavailable", "timeout") });
    expect(verdict({ litigatorClean: true }, "post", FINE, down)).toMatchObject({ pass: false, wait: false });
    expect(verdict({ litigatorClean: true, whenUnavailable: "wait" }, "post", FINE, down)).toMatchObject({ pass: false, wait: true, reason: expect.stringContaining(": waiting") });
    expect(verdict({ litigatorClean: true, whenUnavailable: "wait" }, "post", FINE, answers({ litigator: answer("failed", "unreadable_phone") }))).toMatchObject({ pass: false, wait: false });
    // No provider configured for it: nothing to wait for.
    expect(verdict({ litigatorClean: true, whenUnavailable: "wait" }, "post", FINE, new Map([["litigator", undefined]]))).toMatchObject({ pass: false, wait: false, reason: expect.stringContaining("no litigator provider is configured") });
  });

  it("refuses a certificate or token of the wrong shape for the buyers that ask for one, without any answer", () => {
    const bad: LocalFacts = { certificateProblem: "the certificate URL is not on https://cert.trustedform.com", tokenProblem: "no LeadiD token came with the lead" };
    expect(verdict({ trustedForm: "certificate" }, "ping", bad, new Map())).toMatchObject({ pass: false, requirement: "trustedform", reason: expect.stringContaining("is not on https://cert.trustedform.com") });
    expect(verdict({ leadid: "token" }, "ping", bad, new Map())).toMatchObject({ pass: false, requirement: "jornaya" });
    expect(verdict({ litigatorClean: true }, "ping", bad, new Map())).toEqual({ pass: true });
  });

  it("refuses waiting when no requirement asks a provider, and unknown fields", () => {
    expect(requirementsSchema.safeParse({ litigatorClean: true, whenUnavailable: "wait" }).success).toBe(true);
    const waiting = requirementsSchema.safeParse({ leadid: "token", whenUnavailable: "wait" });
    expect(waiting.success).toBe(false);
    expect(waiting.error?.issues[0]?.path).toEqual(["whenUnavailable"]);
    expect(requirementsSchema.safeParse({ lineTypes: [] }).success).toBe(false);
    expect(requirementsSchema.safeParse({ lineTypes: ["satellite"] }).success).toBe(false);
    expect(requirementsSchema.safeParse({ litigator: true }).success).toBe(false);
  });
});
