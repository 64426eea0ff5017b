/**
 * Synthetic funnel traffic for `npm run bench:report`: visits from ~50 sources (a few large, a
 * long tail), each going as far down the funnel as chance takes it, with the shape of real
 * affiliate traffic: most clicks submit a ZIP, fewer start the form, about one in twelve becomes
 * a lead, two in three leads sell, a few sales come back; some click ids are clicked twice, some
 * visits carry no click id, a few are bots. Deterministic (a seeded generator), so two runs load
 * the same events.
 *
 * Time runs with the number of events made, so the events spread evenly over the whole window
 * whatever their total.
 */
import type { EventInput } from "../../server/analytics/store";
import { mulberry32 } from "../../tools/experiment-traffic";

export interface TrafficShape {
  /** How many events in all. */
  events: number;
  /** The first instant of the window. */
  start: Date;
  days: number;
  sids: number;
  /** Events per insertEvents call. */
  batchSize: number;
  seed?: number;
}

const REFERENCE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";

/** A unique lead reference like LD-7K3M-Q9XD from a counter. */
function leadReference(n: number): string {
  let text = "";
  for (let i = 0; i < 8; i += 1) {
    text += REFERENCE_ALPHABET[n % REFERENCE_ALPHABET.length];
    n = Math.floor(n / REFERENCE_ALPHABET.length);
  }
  return `LD-${text.slice(0, 4)}-${text.slice(4)}`;
}

export interface GeneratedTraffic {
  batches: Iterable<EventInput[]>;
  /** A click id whose visit became a sold lead, half-way through the window: the journey to time. */
  journeyTid(): string | undefined;
}

export function generateTraffic(shape: TrafficShape): GeneratedTraffic {
  // mulberry32: small, fast and good enough to shape traffic (the experiments' simulations use the same one).
  const random = mulberry32(shape.seed ?? 11);
  const chance = (p: number) => random() < p;
  const windowMs = shape.days * 86_400_000;
  // Zipf-like weights: source i gets 1/(i+1) of the traffic, relatively.
  const weights = Array.from({ length: shape.sids }, (_, i) => 1 / (i + 1));
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const pickSid = (): string | null => {
    if (chance(0.03)) return null; // typed-in traffic, no campaign
    let r = random() * weightSum;
    for (let i = 0; i < weights.length; i += 1) {
      r -= weights[i]!;
      if (r <= 0) return `src${String(i + 1).padStart(2, "0")}`;
    }
    return `src${shape.sids}`;
  };
  let made = 0;
  let visits = 0;
  let leads = 0;
  let journey: string | undefined;
  /** The last click per source: a repeated click is the same clicker again (its id, and bot or not). */
  const lastClick = new Map<string, { tid: string; bot: boolean }>();

  function visit(): EventInput[] {
    visits += 1;
    const at = shape.start.getTime() + (made / shape.events) * windowMs;
    let clock = at;
    const later = (maxSeconds: number) => new Date((clock += 1_000 + random() * maxSeconds * 1_000));
    const sid = pickSid();
    const key = sid ?? "";
    const last = lastClick.get(key);
    const repeat = last && chance(0.05) ? last : undefined;
    const tid = repeat ? repeat.tid : chance(0.85) ? `c${visits.toString(36)}` : null;
    const bot = repeat ? repeat.bot : chance(0.06);
    if (tid) lastClick.set(key, { tid, bot });
    const visitId = `v${visits.toString(36)}`;
    const gpc = chance(0.08);
    const base = { sid, tid, visitId, bot, gpc };
    const events: EventInput[] = [{ name: "campaign_hit", at: new Date(clock), ...base, path: "/zipcode" }];
    if (!chance(bot ? 0.3 : 0.7)) return events;
    const accepted = chance(0.95);
    events.push({ name: "zip_submitted", at: later(20), ...base, detail: accepted ? "accepted" : "invalid_zip" });
    if (!accepted || bot) return events;
    events.push({ name: "quote_page_view", at: later(2), ...base, path: "/" });
    if (!chance(0.45)) return events;
    events.push({ name: "form_started", at: later(15), ...base });
    let step = 0;
    while (step < 5 && chance(step === 0 ? 0.85 : 0.8)) {
      step += 1;
      events.push({ name: "form_step_completed", at: later(30), ...base, step });
    }
    if (step < 5 || !chance(0.8)) return events;
    leads += 1;
    const reference = leadReference(leads * 7_919);
    if (chance(0.07)) {
      events.push({ name: "lead_duplicate", at: later(5), ...base, leadReference: reference });
      return events;
    }
    events.push({ name: "lead_submitted", at: later(5), ...base, leadReference: reference });
    const lead = { sid, tid, visitId, leadReference: reference };
    if (chance(0.3)) events.push({ name: "buyer_rejected", at: later(3), ...lead, target: "buyer-b", detail: "cap" });
    if (!chance(0.65)) return events;
    const price = Math.round((12 + random() * 33) * 100) / 100;
    const payout = Math.round(price * 40) / 100;
    events.push({ name: "lead_sold", at: later(3), ...lead, target: "buyer-a", revenue: price, payout });
    if (sid) events.push({ name: "postback_sent", at: later(2), ...lead, target: sid, detail: "sold" });
    if (tid && !journey && made > shape.events / 2) journey = tid;
    if (chance(0.06)) {
      // Returned within a few days: the reversal lands on the day of the return.
      clock += random() * 4 * 86_400_000;
      events.push({ name: "lead_returned", at: later(60), ...lead, target: "buyer-a", detail: "disconnected", revenue: price, payout });
      if (sid) events.push({ name: "postback_sent", at: later(2), ...lead, target: sid, detail: "returned" });
    }
    return events;
  }

  function* batches(): Generator<EventInput[]> {
    let batch: EventInput[] = [];
    while (made < shape.events) {
      for (const event of visit()) {
        if (made >= shape.events) break;
        batch.push(event);
        made += 1;
        if (batch.length === shape.batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  }

  return { batches: batches(), journeyTid: () => journey };
}
