/**
 * compileSpec: a parsed spec made ready to use, once per buyer and settings change, never per
 * lead. A `quoteridge` spec compiles to a marker only: the caller sends today's signed payload
 * (server/delivery/payload.ts) and reads the answer as today.
 */
import { compileAnswer, type AnswerReading, type BuyerAnswer } from "./answer";
import { compileRenderer, type RenderResult, type RenderTarget } from "./render";
import type { RenderInput } from "./facts";
import type { HttpSpec, RequestSpec } from "./schema";

export interface CompiledQuoteridgeSpec {
  format: "quoteridge";
}

export interface CompiledHttpSpec {
  format: HttpSpec["format"];
  /** The exact request for this lead (or ping) and its masked copy; or the value the lead lacks. */
  render(input: RenderInput, target: RenderTarget): RenderResult;
  /** The buyer's answer as the spec's rules read it; `error` when no rule matches. */
  readAnswer(answer: BuyerAnswer): AnswerReading;
}

export type CompiledSpec = CompiledQuoteridgeSpec | CompiledHttpSpec;

export function compileSpec(spec: RequestSpec): CompiledSpec {
  if (spec.format === "quoteridge") return { format: "quoteridge" };
  return { format: spec.format, render: compileRenderer(spec), readAnswer: compileAnswer(spec.answer) };
}

/** Compiled specs by the spec object: a settings change makes new objects, so each is compiled once and again only after a change. */
const compiledBySpec = new WeakMap<RequestSpec, CompiledHttpSpec | null>();

/**
 * The compiled spec that renders a stage's requests in the buyer's own terms, or null when the
 * stage has none (or says "quoteridge": our signed JSON). The worker's posts and the auction's pings
 * both read it per lead.
 */
export function httpSpecOf(spec: RequestSpec | undefined): CompiledHttpSpec | null {
  if (!spec) return null;
  let compiled = compiledBySpec.get(spec);
  if (compiled === undefined) {
    const made = compileSpec(spec);
    compiled = made.format === "quoteridge" ? null : made;
    compiledBySpec.set(spec, compiled);
  }
  return compiled;
}
