/**
 * The funnel events the quote form reports through POST /api/events (docs/logging.md): the
 * server logs and stores them for analysts with the campaign ids and the visit id, never
 * personal details. `ms` (time since the form opened) lets the server flag step completions no
 * person could make, as bots.
 */
import * as z from "zod/mini";
import { campaignIdSchema, zipSchema } from "./campaign";
import { LEAD_STEPS, SCREEN_IDS } from "./lead/fields";

export const FUNNEL_EVENTS = ["form_started", "form_step_completed"] as const;

/**
 * The screens of the three-step form that one-question screens replaced (issue 32). A page of it
 * still open in a visitor's tab during and after a deploy reports them; they are stored as sent,
 * and the report counts them apart as earlier screens (docs/analytics.md).
 */
export const EARLIER_SCREEN_IDS = ["vehicle", "driver", "driver-history", "insurance"] as const;
export type FunnelEventName = (typeof FUNNEL_EVENTS)[number];

export const funnelEventSchema = z
  .object({
    event: z.enum(FUNNEL_EVENTS),
    step: z.optional(z.int().check(z.gte(1), z.lte(LEAD_STEPS.length))),
    /** The screen completed (shared/lead/fields.ts, FORM_SCREENS), so analysts see where visitors stop; optional: a form opened before screens existed still reports. */
    screen: z.optional(z.enum([...EARLIER_SCREEN_IDS, ...SCREEN_IDS] as [string, ...string[]])),
    zip: z.optional(zipSchema),
    sid: z.optional(campaignIdSchema),
    tid: z.optional(campaignIdSchema),
    vid: z.optional(campaignIdSchema),
    /** Milliseconds since the form opened. Optional: a form loaded before it existed still reports. */
    ms: z.optional(z.int().check(z.gte(0))),
  })
  // A step completion says which step (and screen); a start does neither.
  .check(z.refine((event) => (event.event === "form_step_completed") === (event.step !== undefined) && (event.screen === undefined || event.step !== undefined)));
export type FunnelEvent = z.infer<typeof funnelEventSchema>;
