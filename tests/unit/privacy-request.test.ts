import fc from "fast-check";
import { badLeading, digit, leading, lineNumber, phoneStyle, threeDigits } from "../support/phone-arbitraries";
import { describe, expect, it } from "vitest";
import {
  DETAILS_MAX_LENGTH,
  EMAIL_MAX_LENGTH,
  PRIVACY_REQUEST_TYPES,
  normalizeUsPhone,
  validatePrivacyRequest,
  type PrivacyRequestField,
} from "../../shared/privacy-request";

const MESSAGES = {
  once: "Send this field once, as text.",
  typeMissing: "Choose what you would like us to do.",
  typeUnknown: "Choose one of the listed requests.",
  email: "Enter an email address like name@example.com.",
  phone: "Enter a 10-digit US phone number, like (415) 555-0134.",
  contact: "Give an email address or a phone number so we can find your information.",
  state: "Choose a state from the list.",
  details: `Keep this under ${DETAILS_MAX_LENGTH} characters.`,
};

function errorsOf(raw: Parameters<typeof validatePrivacyRequest>[0]) {
  const result = validatePrivacyRequest(raw);
  if (result.ok) throw new Error(`expected errors, got ${JSON.stringify(result.value)}`);
  return result.errors;
}

function valueOf(raw: Parameters<typeof validatePrivacyRequest>[0]) {
  const result = validatePrivacyRequest(raw);
  if (!result.ok) throw new Error(`expected a valid request, got ${JSON.stringify(result.errors)}`);
  return result.value;
}

/** A syntactically valid address of exactly `length` characters (labels of at most 63). */
function emailOfLength(length: number): string {
  let domain = "example.com";
  const local = "a";
  while (local.length + 1 + domain.length < length) {
    const room = length - (local.length + 1 + domain.length) - 1; // one for the dot
    domain = `${"d".repeat(Math.max(1, Math.min(63, room)))}.${domain}`;
  }
  const email = `${local}@${domain}`;
  if (email.length !== length) throw new Error(`built ${email.length} characters, not ${length}`);
  return email;
}

describe("validatePrivacyRequest", () => {
  it("accepts each request type with an email (an appeal with its details)", () => {
    for (const requestType of PRIVACY_REQUEST_TYPES.filter((type) => type !== "appeal")) {
      expect(valueOf({ requestType, email: "a@example.com" })).toEqual({ requestType, email: "a@example.com" });
    }
    expect(valueOf({ requestType: "appeal", email: "a@example.com", details: "PR-7K3M-Q9XD: you did not delete my lead" })).toEqual({
      requestType: "appeal",
      email: "a@example.com",
      details: "PR-7K3M-Q9XD: you did not delete my lead",
    });
  });

  it("refuses an appeal that says nothing about the request appealed", () => {
    for (const details of [undefined, "", "   "]) {
      expect(errorsOf({ requestType: "appeal", email: "a@example.com", ...(details === undefined ? {} : { details }) })).toEqual({
        details: "Give the reference number of the request you are appealing (like PR-7K3M-Q9XD) and tell us why.",
      });
    }
  });

  describe("requestType", () => {
    it("is required", () => {
      expect(errorsOf({ email: "a@example.com" })).toEqual({ requestType: MESSAGES.typeMissing });
      expect(errorsOf({ requestType: "  ", email: "a@example.com" })).toEqual({ requestType: MESSAGES.typeMissing });
    });

    it("must be one of the listed types (trimmed, case-sensitive)", () => {
      expect(errorsOf({ requestType: "sell_everything", email: "a@example.com" })).toEqual({ requestType: MESSAGES.typeUnknown });
      expect(errorsOf({ requestType: "ACCESS", email: "a@example.com" })).toEqual({ requestType: MESSAGES.typeUnknown });
      expect(errorsOf({ requestType: "toString", email: "a@example.com" })).toEqual({ requestType: MESSAGES.typeUnknown });
      expect(valueOf({ requestType: " access ", email: "a@example.com" }).requestType).toBe("access");
    });
  });

  describe("email", () => {
    it("is trimmed and lower-cased", () => {
      expect(valueOf({ requestType: "access", email: "  Ana.Smith@Example.COM " }).email).toBe("ana.smith@example.com");
    });

    it("refuses what is not an address", () => {
      for (const email of ["ana", "ana@", "@example.com", "ana@example", "ana example@example.com", "ana@@example.com"]) {
        expect(errorsOf({ requestType: "access", email }), email).toEqual({ email: MESSAGES.email });
      }
    });

    it(`accepts ${EMAIL_MAX_LENGTH} characters and refuses one more`, () => {
      expect(valueOf({ requestType: "access", email: emailOfLength(EMAIL_MAX_LENGTH) }).email).toHaveLength(EMAIL_MAX_LENGTH);
      expect(errorsOf({ requestType: "access", email: emailOfLength(EMAIL_MAX_LENGTH + 1) })).toEqual({ email: MESSAGES.email });
    });

    it("an invalid email is reported as such even with a valid phone", () => {
      expect(errorsOf({ requestType: "access", email: "nope", phone: "4155550134" })).toEqual({ email: MESSAGES.email });
    });
  });

  describe("phone", () => {
    it("is normalised to E.164", () => {
      expect(valueOf({ requestType: "access", phone: " (415) 555-0134 " })).toEqual({ requestType: "access", phone: "+14155550134" });
    });

    it("refuses what is not a US number", () => {
      for (const phone of ["555-0134", "+44 20 7946 0958", "(115) 555-0134", "415-055-0134", "call me", "415 555 0134 ext 2"]) {
        expect(errorsOf({ requestType: "access", phone }), phone).toEqual({ phone: MESSAGES.phone });
      }
    });
  });

  describe("email or phone", () => {
    it("needs at least one (blank counts as absent), reported on email", () => {
      expect(errorsOf({ requestType: "access" })).toEqual({ email: MESSAGES.contact });
      expect(errorsOf({ requestType: "access", email: "", phone: "  " })).toEqual({ email: MESSAGES.contact });
    });

    it("accepts either alone, or both", () => {
      expect(valueOf({ requestType: "deletion", email: "a@example.com" })).toEqual({ requestType: "deletion", email: "a@example.com" });
      expect(valueOf({ requestType: "deletion", phone: "415.555.0134" })).toEqual({ requestType: "deletion", phone: "+14155550134" });
      expect(valueOf({ requestType: "deletion", email: "a@example.com", phone: "+1 415 555 0134" })).toEqual({
        requestType: "deletion",
        email: "a@example.com",
        phone: "+14155550134",
      });
    });

    it("an invalid phone alone is reported on phone only", () => {
      expect(errorsOf({ requestType: "access", phone: "12" })).toEqual({ phone: MESSAGES.phone });
    });
  });

  describe("state", () => {
    it("is optional, trimmed and upper-cased", () => {
      expect(valueOf({ requestType: "access", email: "a@example.com", state: " ca " }).state).toBe("CA");
      expect(valueOf({ requestType: "access", email: "a@example.com", state: "dc" }).state).toBe("DC");
      expect(valueOf({ requestType: "access", email: "a@example.com", state: "" })).not.toHaveProperty("state");
    });

    it("must be a listed state or territory", () => {
      for (const state of ["ZZ", "California", "C", "__proto__", "constructor", "toString"]) {
        expect(errorsOf({ requestType: "access", email: "a@example.com", state }), state).toEqual({ state: MESSAGES.state });
      }
    });
  });

  describe("details", () => {
    it("are kept, trimmed, only for a correction or an appeal", () => {
      expect(valueOf({ requestType: "correction", email: "a@example.com", details: "  My address is 12 Oak St.  " }).details).toBe("My address is 12 Oak St.");
      expect(valueOf({ requestType: "appeal", email: "a@example.com", details: " PR-7K3M-Q9XD " }).details).toBe("PR-7K3M-Q9XD");
      for (const requestType of PRIVACY_REQUEST_TYPES.filter((type) => type !== "correction" && type !== "appeal")) {
        expect(valueOf({ requestType, email: "a@example.com", details: "ignored" }), requestType).not.toHaveProperty("details");
      }
    });

    it(`accept ${DETAILS_MAX_LENGTH} characters and refuse one more`, () => {
      expect(valueOf({ requestType: "correction", email: "a@example.com", details: "x".repeat(DETAILS_MAX_LENGTH) }).details).toHaveLength(DETAILS_MAX_LENGTH);
      expect(errorsOf({ requestType: "correction", email: "a@example.com", details: "x".repeat(DETAILS_MAX_LENGTH + 1) })).toEqual({ details: MESSAGES.details });
    });
  });

  describe("a field sent twice (an array) or as a non-string", () => {
    const valid = { requestType: "correction", email: "a@example.com", phone: "4155550134", state: "CA", details: "fix" };

    it.each(["requestType", "email", "phone", "state", "details"] as PrivacyRequestField[])("refuses %s as an array", (field) => {
      const errors = errorsOf({ ...valid, [field]: [valid[field], valid[field]] });
      expect(errors[field]).toBe(MESSAGES.once);
      expect(Object.keys(errors)).toEqual([field]);
    });

    it("refuses numbers and objects too", () => {
      expect(errorsOf({ ...valid, phone: 4155550134 })).toEqual({ phone: MESSAGES.once });
      expect(errorsOf({ ...valid, state: { CA: true } })).toEqual({ state: MESSAGES.once });
    });

    it("refuses a lone array email as sent twice, besides the missing contact", () => {
      expect(errorsOf({ requestType: "access", email: ["a@example.com", "b@example.com"] })).toEqual({ email: MESSAGES.once });
    });
  });

  it("reports every bad field at once", () => {
    expect(errorsOf({ requestType: "nope", email: "nope", phone: "nope", state: "nope", details: "x".repeat(DETAILS_MAX_LENGTH + 1) })).toEqual({
      requestType: MESSAGES.typeUnknown,
      email: MESSAGES.email,
      phone: MESSAGES.phone,
      state: MESSAGES.state,
    });
    expect(errorsOf({ requestType: "correction", email: "nope", details: "x".repeat(DETAILS_MAX_LENGTH + 1) })).toEqual({
      email: MESSAGES.email,
      details: MESSAGES.details,
    });
  });

  it("does not hold details it will discard against a request that is not a correction", () => {
    expect(valueOf({ requestType: "deletion", email: "a@example.com", details: "x".repeat(DETAILS_MAX_LENGTH + 1) })).toEqual({
      requestType: "deletion",
      email: "a@example.com",
    });
  });

  it("ignores unknown fields", () => {
    const raw = { requestType: "access", email: "a@example.com", admin: "true" } as Parameters<typeof validatePrivacyRequest>[0];
    expect(valueOf(raw)).toEqual({ requestType: "access", email: "a@example.com" });
  });
});

describe("normalizeUsPhone", () => {
  const format = phoneStyle;
  const padding = fc.constantFrom("", " ", "  ", "\t");

  it("examples", () => {
    expect(normalizeUsPhone("(415) 555-0134")).toBe("+14155550134");
    expect(normalizeUsPhone("415.555.0134")).toBe("+14155550134");
    expect(normalizeUsPhone("+1 415 555 0134")).toBe("+14155550134");
    expect(normalizeUsPhone("1-800-555-0199")).toBe("+18005550199");
    expect(normalizeUsPhone("+14155550134")).toBe("+14155550134");
    expect(normalizeUsPhone("")).toBeUndefined();
    expect(normalizeUsPhone("1-800-FLOWERS")).toBeUndefined();
    expect(normalizeUsPhone("+2 415 555 0134")).toBeUndefined();
  });

  it("normalises any valid NANP number in a common format to +1XXXXXXXXXX", () => {
    fc.assert(
      fc.property(threeDigits(leading), threeDigits(leading), lineNumber, format, padding, padding, (area, exchange, line, style, before, after) => {
        expect(normalizeUsPhone(`${before}${style(area, exchange, line)}${after}`)).toBe(`+1${area}${exchange}${line}`);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses an area code or exchange starting with 0 or 1", () => {
    const badArea = fc.tuple(threeDigits(badLeading), threeDigits(fc.oneof(leading, badLeading)));
    const badExchange = fc.tuple(threeDigits(fc.oneof(leading, badLeading)), threeDigits(badLeading));
    fc.assert(
      fc.property(fc.oneof(badArea, badExchange), lineNumber, format, ([area, exchange], line, style) => {
        expect(normalizeUsPhone(style(area, exchange, line))).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it("refuses the wrong number of digits, however they are separated", () => {
    const separator = fc.constantFrom("", "", " ", "-", ".", "(", ")", "+");
    const wrongCount = fc.oneof(
      fc.array(digit, { minLength: 0, maxLength: 9 }),
      fc.array(digit, { minLength: 12, maxLength: 20 }),
      // eleven digits are only a number with its country code when the first is 1
      fc.tuple(leading, fc.array(digit, { minLength: 10, maxLength: 10 })).map(([first, rest]) => [first, ...rest]),
      fc.tuple(fc.constant("0"), fc.array(digit, { minLength: 10, maxLength: 10 })).map(([first, rest]) => [first, ...rest]),
    );
    fc.assert(
      fc.property(wrongCount, fc.array(separator, { minLength: 21, maxLength: 21 }), (digits, separators) => {
        const input = digits.map((d, i) => `${separators[i] ?? ""}${d}`).join("");
        expect(normalizeUsPhone(input)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it("returns either nothing or a US E.164 number, which normalises to itself", () => {
    const phoneLike = fc.string({ unit: fc.constantFrom(..."0123456789 ().+-x1"), maxLength: 24 });
    fc.assert(
      fc.property(fc.oneof(phoneLike, fc.string()), (input) => {
        const result = normalizeUsPhone(input);
        if (result === undefined) return;
        expect(result).toMatch(/^\+1[2-9]\d{2}[2-9]\d{6}$/);
        expect(normalizeUsPhone(result)).toBe(result);
      }),
      { numRuns: 1000 },
    );
  });
});
