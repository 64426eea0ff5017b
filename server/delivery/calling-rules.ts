/**
 * Calling rules that travel with every lead a buyer receives (issue 16; docs/calling-rules.md):
 * the lead's time zone, and the hours and frequency limits the law of the lead's state sets for
 * telephone solicitation, narrowed by the federal hours, as data a dialer can apply. The table is
 * the operator's: each entry names the law it comes from, and docs/calling-rules.md says when it
 * was last reviewed. It states limits; it never widens them (a buyer's own counsel may read a law
 * more strictly).
 */

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** "HH:MM", 24-hour, local time at the lead's ZIP. */
type LocalTime = `${number}${number}:${number}${number}`;

/** When calls may be made on one day: from `start` up to `end`; null: not at all that day. */
export type CallWindow = { start: LocalTime; end: LocalTime } | null;

export interface CallingLaw {
  /** Hours per weekday (a weekday left out: the federal hours). */
  hours: Partial<Record<Weekday, CallWindow>>;
  /** Calls on the same subject to one person within 24 hours, from any number; null: no state limit. */
  maxCallsPer24h: number | null;
  /** The law, as cited: where a reader checks it. */
  source: string;
}

const EVERY_DAY = (window: CallWindow): Record<Weekday, CallWindow> => Object.fromEntries(WEEKDAYS.map((day) => [day, window])) as Record<Weekday, CallWindow>;

/** 47 CFR § 64.1200(c)(1): no telephone solicitation before 8 a.m. or after 9 p.m., local time at the called party's location. */
export const FEDERAL_RULE: CallingLaw = {
  hours: EVERY_DAY({ start: "08:00", end: "21:00" }),
  maxCallsPer24h: null,
  source: "47 CFR § 64.1200(c)(1) (Telephone Consumer Protection Act rules)",
};

/**
 * The states whose law sets calling hours or a frequency limit for telephone solicitation (the
 * others follow the federal hours). Reviewed 2026-11-26; docs/calling-rules.md lists the same
 * table for people.
 */
export const STATE_RULES: Readonly<Record<string, CallingLaw>> = {
  CT: { hours: EVERY_DAY({ start: "09:00", end: "20:00" }), maxCallsPer24h: null, source: "Conn. Gen. Stat. § 42-288a (as amended by Public Act 23-98)" },
  FL: { hours: EVERY_DAY({ start: "08:00", end: "20:00" }), maxCallsPer24h: 3, source: "Fla. Stat. § 501.616(6) (Florida Telephone Solicitation Act)" },
  MD: { hours: EVERY_DAY({ start: "08:00", end: "20:00" }), maxCallsPer24h: 3, source: "Md. Code, Com. Law § 14-4503 (Stop the Spam Calls Act of 2023)" },
  OK: { hours: EVERY_DAY({ start: "08:00", end: "20:00" }), maxCallsPer24h: 3, source: "Okla. Stat. tit. 15, § 775C.4 (Telephone Solicitation Act of 2022)" },
  TX: {
    hours: { ...EVERY_DAY({ start: "09:00", end: "21:00" }), sun: { start: "12:00", end: "21:00" } },
    maxCallsPer24h: null,
    source: "Tex. Bus. & Com. Code § 301.051",
  },
  WA: { hours: EVERY_DAY({ start: "08:00", end: "20:00" }), maxCallsPer24h: null, source: "RCW 80.36.390(2)" },
};

/** What a delivery's `callingRules` field carries. */
export interface CallingRules {
  /** IANA time zone at the lead's ZIP ("America/Chicago"); null if unknown (then the buyer uses the state's earliest-closing zone). */
  timeZone: string | null;
  state: string;
  /** Local hours per weekday when a call may be made: the federal hours narrowed by the state's. */
  hours: Record<Weekday, CallWindow>;
  /** The state's limit on calls on the same subject within 24 hours; null when no state law sets one. */
  maxCallsPer24h: number | null;
  /** The laws the hours and the limit come from, federal first. */
  sources: string[];
}

const later = (a: LocalTime, b: LocalTime): LocalTime => (a > b ? a : b);
const earlier = (a: LocalTime, b: LocalTime): LocalTime => (a < b ? a : b);

/** Two windows' overlap: both laws apply, so the narrower hours win. */
function overlap(a: CallWindow, b: CallWindow): CallWindow {
  if (a === null || b === null) return null;
  const start = later(a.start, b.start);
  const end = earlier(a.end, b.end);
  return start < end ? { start, end } : null;
}

/** The calling rules for a lead in `state` whose ZIP is in `timeZone`. */
export function callingRules(state: string, timeZone: string | null): CallingRules {
  const law = STATE_RULES[state];
  const hours = Object.fromEntries(
    WEEKDAYS.map((day) => {
      const federal = FEDERAL_RULE.hours[day] ?? null;
      const local = law?.hours[day];
      return [day, local === undefined ? federal : overlap(federal, local)];
    }),
  ) as Record<Weekday, CallWindow>;
  return {
    timeZone: timeZone || null,
    state,
    hours,
    maxCallsPer24h: law?.maxCallsPer24h ?? null,
    sources: law ? [FEDERAL_RULE.source, law.source] : [FEDERAL_RULE.source],
  };
}
