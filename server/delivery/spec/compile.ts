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
