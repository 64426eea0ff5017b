/** server/http/bot-agent.ts: isbot's answer, remembered per user agent. */
import { isbot } from "isbot";
import { describe, expect, it } from "vitest";
import { isBotUserAgent } from "../../server/http/bot-agent";

const PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
const CRAWLER = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

describe("isBotUserAgent", () => {
  it("gives isbot's answer, the first time and when asked again", () => {
    for (const agent of [PHONE, CRAWLER, "curl/8.5.0", "", `${PHONE} ${"x".repeat(600)}`]) {
      expect(isBotUserAgent(agent), agent.slice(0, 40)).toBe(isbot(agent));
      expect(isBotUserAgent(agent), agent.slice(0, 40)).toBe(isbot(agent));
    }
    expect(isBotUserAgent(PHONE)).toBe(false);
    expect(isBotUserAgent(CRAWLER)).toBe(true);
  });

  it("keeps its answers apart however many agents it has seen", () => {
    for (let index = 0; index < 5_000; index += 1) {
      const agent = index % 2 === 0 ? `${PHONE} build/${index}` : `crawler-${index}bot/1.0`;
      expect(isBotUserAgent(agent)).toBe(isbot(agent));
    }
    expect(isBotUserAgent(PHONE)).toBe(false);
  });
});
