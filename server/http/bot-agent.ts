/**
 * Whether a user agent is a crawler's or a script's (isbot's list). isbot tests one large regular
 * expression, about as costly as the rest of a cached page's answer for a phone's user agent, and
 * every ad click asks it (its funnel event's bot flag). Browsers of one kind send the same string,
 * so the answers for the most recent agents are remembered (issue 12).
 */
import { isbot } from "isbot";
import { LRUCache } from "lru-cache";

/** Distinct user agents remembered; an ad burst comes from a few hundred browser builds. */
const REMEMBERED = 2_000;
/** Longer strings are tested every time and never kept (they could only crowd the cache). */
const MAX_REMEMBERED_LENGTH = 512;

const answers = new LRUCache<string, boolean>({ max: REMEMBERED });

export function isBotUserAgent(userAgent: string): boolean {
  let answer = answers.get(userAgent);
  if (answer === undefined) {
    answer = isbot(userAgent);
    if (userAgent.length <= MAX_REMEMBERED_LENGTH) answers.set(userAgent, answer);
  }
  return answer;
}
