import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  CAMPAIGN_ID_MAX_LENGTH,
  campaignIdSchema,
  campaignQueryString,
  parseCampaignQuery,
  parseCampaignSearch,
  sanitizeZipInput,
  visitIdOf,
  zipSchema,
} from "../../shared/campaign";
import { randomId } from "../../shared/random-id";

const UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~";
const campaignId = fc
  .array(fc.constantFrom(...UNRESERVED.split("")), { minLength: 1, maxLength: CAMPAIGN_ID_MAX_LENGTH })
  .map((chars) => chars.join(""));
const fiveDigits = fc.array(fc.constantFrom(..."0123456789".split("")), { minLength: 5, maxLength: 5 }).map((d) => d.join(""));

describe("zipSchema", () => {
  it("accepts every string of exactly five digits", () => {
    fc.assert(fc.property(fiveDigits, (zip) => zipSchema.safeParse(zip).success));
  });

  it("refuses anything that is not exactly five ASCII digits", () => {
    const digitHeavy = fc.array(fc.oneof(fc.constantFrom(..."0123456789".split("")), fc.string({ unit: "binary", maxLength: 1 })), { maxLength: 8 }).map((parts) => parts.join(""));
    fc.assert(fc.property(digitHeavy, (value) => zipSchema.safeParse(value).success === /^[0-9]{5}$/.test(value)));
    for (const bad of ["1234", "123456", "12 45", "١٢٣٤٥", "12345\n", " 12345", "abcde"]) {
      expect(zipSchema.safeParse(bad).success, bad).toBe(false);
    }
  });
});

describe("campaignIdSchema", () => {
  it("accepts 1–64 characters of letters, digits and - _ . ~", () => {
    fc.assert(fc.property(campaignId, (id) => campaignIdSchema.safeParse(id).success));
  });

  it("refuses empty, over-long, and any value with another character", () => {
    expect(campaignIdSchema.safeParse("").success).toBe(false);
    expect(campaignIdSchema.safeParse("a".repeat(CAMPAIGN_ID_MAX_LENGTH + 1)).success).toBe(false);
    // Oracle: the documented rule, applied to near-valid strings with any character mixed in.
    const nearlyValid = fc.array(fc.oneof(fc.constantFrom(...UNRESERVED.split("")), fc.string({ unit: "binary", maxLength: 1 })), { maxLength: 70 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(nearlyValid, (value) => campaignIdSchema.safeParse(value).success === /^[A-Za-z0-9._~-]{1,64}$/.test(value)),
    );
    for (const bad of ["a b", "a/b", "a?b", "<script>", "a%20b", "a\u0000b", "https://evil.example", "é"]) {
      expect(campaignIdSchema.safeParse(bad).success, bad).toBe(false);
    }
  });
});

describe("sanitizeZipInput", () => {
  it("keeps only digits, at most five, in the order typed", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (typed) => {
        const out = sanitizeZipInput(typed);
        const digits = typed.replace(/[^0-9]/g, "");
        return /^[0-9]{0,5}$/.test(out) && out === digits.slice(0, 5);
      }),
    );
    expect(sanitizeZipInput("90a2-10 99")).toBe("90210");
  });
});

describe("parseCampaignQuery", () => {
  it("keeps valid values and reports each refused one with a reason", () => {
    const parsed = parseCampaignQuery({ zip: "90210", sid: "a1", tid: ["x", "y"] });
    expect(parsed).toEqual({
      campaign: { sid: "a1" },
      zip: "90210",
      zipGiven: true,
      rejected: [{ param: "tid", reason: "repeated" }],
    });
  });

  it("names the reason for every kind of bad value", () => {
    const parsed = parseCampaignQuery({ zip: "", sid: "a".repeat(65), tid: { nested: "1" } });
    expect(parsed.rejected).toEqual([
      { param: "zip", reason: "empty" },
      { param: "sid", reason: "too_long" },
      { param: "tid", reason: "not_a_string" },
    ]);
    expect(parseCampaignQuery({ sid: "a b" }).rejected).toEqual([{ param: "sid", reason: "bad_characters" }]);
  });

  it("never throws and never passes on an invalid value, whatever the input", () => {
    const value = fc.oneof(fc.string(), fc.array(fc.string()), fc.dictionary(fc.string(), fc.string()), fc.constant(undefined));
    fc.assert(
      fc.property(value, value, value, value, (zip, sid, tid, vid) => {
        const parsed = parseCampaignQuery({ zip, sid, tid, vid });
        if (parsed.zip !== undefined && !zipSchema.safeParse(parsed.zip).success) return false;
        return Object.values(parsed.campaign).every((id) => campaignIdSchema.safeParse(id).success);
      }),
    );
  });
});

describe("the visit id (vid)", () => {
  it("is read, and refused, like sid and tid", () => {
    const id = randomId();
    expect(parseCampaignQuery({ sid: "a1", vid: id }).campaign).toEqual({ sid: "a1", vid: id });
    expect(parseCampaignQuery({ vid: "<x>" }).rejected).toEqual([{ param: "vid", reason: "bad_characters" }]);
    expect(parseCampaignSearch(new URLSearchParams(`vid=${id}&vid=${id}`)).rejected).toEqual([{ param: "vid", reason: "repeated" }]);
  });

  it("is the minted UUIDs' shape: every one passes the campaign id rule", () => {
    for (let i = 0; i < 50; i += 1) expect(campaignIdSchema.safeParse(randomId()).success).toBe(true);
  });

  it("is taken from an address only when given once and valid (else a new one is minted)", () => {
    expect(visitIdOf(new URLSearchParams("sid=a1&vid=v-1"))).toBe("v-1");
    for (const search of ["sid=a1", "vid=", "vid=a%20b", "vid=a&vid=b", `vid=${"x".repeat(65)}`]) {
      expect(visitIdOf(new URLSearchParams(search)), search).toBeUndefined();
    }
  });
});

describe("parseCampaignSearch", () => {
  it("treats a key given twice as repeated", () => {
    const parsed = parseCampaignSearch(new URLSearchParams("zip=12345&zip=54321&sid=a"));
    expect(parsed.zip).toBeUndefined();
    expect(parsed.rejected).toEqual([{ param: "zip", reason: "repeated" }]);
    expect(parsed.campaign).toEqual({ sid: "a" });
  });
});

describe("campaignQueryString", () => {
  it("round-trips any valid zip, sid, tid and vid, in a fixed order", () => {
    const optional = fc.option(campaignId, { nil: undefined });
    fc.assert(
      fc.property(fiveDigits, optional, optional, optional, (zip, sid, tid, vid) => {
        const text = campaignQueryString({ zip, sid, tid, vid });
        const parsed = parseCampaignSearch(new URLSearchParams(text.slice(1)));
        const keys = [...new URLSearchParams(text.slice(1)).keys()];
        const order = ["zip", "sid", "tid", "vid"].filter((key) => keys.includes(key));
        return (
          parsed.zip === zip && parsed.campaign.sid === sid && parsed.campaign.tid === tid && parsed.campaign.vid === vid &&
          text.startsWith(`?zip=${zip}`) && keys.join() === order.join()
        );
      }),
    );
  });

  it("is empty when there is nothing to carry", () => {
    expect(campaignQueryString({})).toBe("");
  });
});
