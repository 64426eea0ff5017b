/**
 * The console's traffic source form (issue 33, item 2): sid, name, payout, floor and postback URL
 * read into a source checked by sourceSchema (server/delivery/buyers.ts), each problem keyed by its
 * field, and a stored source written back into fields for the edit form.
 */
import { sourceAddressProblem, sourceSchema, type Source, type SourceStatus } from "../delivery/buyers";
import type { OutboundPolicy } from "../delivery/outbound";
import type { FormValues } from "../../shared/admin-views";
import { amount, compact, errorsByField, fieldForPath, sentence, text } from "./settings-form";

const SOURCE_FIELDS = new Set(["sid", "name", "payout", "floor", "postbackUrl"]);

export type SourceFormResult = { ok: true; source: Source } | { ok: false; errors: Record<string, string> };

/**
 * The form checked: the source to save (`sid` from the address when editing), or every problem by
 * field at once; the postback address must be one the outbound policy lets the server call.
 */
export function checkSourceForm(values: FormValues, options: { sid?: string; status: SourceStatus; outbound: OutboundPolicy; others?: ReadonlyArray<Pick<Source, "sid">> }): SourceFormResult {
  const input = compact({
    sid: options.sid ?? text(values, "sid"),
    name: text(values, "name") || undefined,
    status: options.status,
    payout: amount(values, "payout"),
    floor: amount(values, "floor"),
    postbackUrl: text(values, "postbackUrl") || undefined,
  });
  const parsed = sourceSchema.safeParse(input ?? {});
  const errors = parsed.success ? {} : errorsByField(parsed.error.issues, (path) => fieldForPath(path, (name) => SOURCE_FIELDS.has(name)));
  const postbackUrl = text(values, "postbackUrl");
  const refused = postbackUrl && errors.postbackUrl === undefined ? sourceAddressProblem({ postbackUrl }, options.outbound) : undefined;
  if (refused !== undefined) errors.postbackUrl = sentence(refused);
  // A new source's sid another has: said with the other problems, not after them (issue 42, item 7).
  const sid = text(values, "sid");
  const taken = options.sid === undefined && errors.sid === undefined && (options.others ?? []).some((source) => source.sid === sid);
  if (taken) errors.sid = `A source with sid ${sid} exists already.`;
  if (!parsed.success || refused !== undefined || taken) return { ok: false, errors };
  return { ok: true, source: parsed.data };
}

/** A stored source as the edit form's fields. */
export function sourceToForm(source: Source): FormValues {
  return {
    sid: source.sid,
    ...(source.name ? { name: source.name } : {}),
    payout: String(source.payout),
    floor: String(source.floor),
    ...(source.postbackUrl ? { postbackUrl: source.postbackUrl } : {}),
  };
}
