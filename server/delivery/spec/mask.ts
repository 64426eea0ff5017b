/**
 * The masked copy of a request (issue 43, item 5): what the console shows ("what Acme would
 * receive for lead LD-…") and what a delivery keeps as sent. Credentials are hidden whole;
 * contact values keep just enough to recognise the lead, in the format the buyer receives them:
 * "a***@example.com", "(415) ***-**34" or "415*****34", names as initials "A***", a date of
 * birth as "**\/**\/1990", an IP as "203.0.*.*", a street as "***". The same helpers as the
 * consent certificate where the shape is the same (server/consent/mask.ts).
 */
import { maskEmail, maskName } from "../../consent/mask";
import type { MaskKind, Scalar } from "./facts";

export const HIDDEN = "***";

/** Every digit but the area code (after a leading country code 1) and the last two, in place. */
function maskPhoneInPlace(text: string): string {
  const digits = text.replace(/\D/g, "");
  const keepFirst = (digits.length === 11 && digits.startsWith("1") ? 1 : 0) + 3;
  const keepFrom = digits.length - 2;
  if (digits.length < 7) return text.replace(/\d/g, "*");
  let seen = 0;
  return text.replace(/\d/g, (digit) => {
    const index = seen;
    seen += 1;
    return index < keepFirst || index >= keepFrom ? digit : "*";
  });
}

/** Keeps the first four-digit run (the year), masks every other digit. */
function maskDate(text: string): string {
  const year = /\d{4}/.exec(text);
  return text.replace(/\d/g, (digit, offset: number) => (year && offset >= year.index && offset < year.index + 4 ? digit : "*"));
}

function maskIp(text: string): string {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(text);
  if (v4) return `${v4[1]}.${v4[2]}.*.*`;
  if (text.includes(":")) return `${text.split(":").slice(0, 2).join(":")}:*`;
  return HIDDEN;
}

/**
 * The few disclosure texts in use, masked: the same words go to every buyer of every lead of a
 * disclosure version, and scanning a thousand characters each time was a third of a render.
 */
const maskedTexts = new Map<string, string>();
const MAX_MASKED_TEXTS = 32;

/** A disclosure's words with any phone number or email address in them hidden. */
function maskText(text: string): string {
  const known = maskedTexts.get(text);
  if (known !== undefined) return known;
  const masked = text.replace(/[^\s@"'<>]+@[^\s@"'<>]+\.[A-Za-z]{2,}/g, "[email]").replace(/\+?\d[\d\s().-]{8,}\d/g, "[number]");
  if (maskedTexts.size >= MAX_MASKED_TEXTS) maskedTexts.clear();
  maskedTexts.set(text, masked);
  return masked;
}

/** A rendered value as the masked copy shows it. */
export function maskValue(kind: MaskKind, value: Scalar): Scalar {
  if (value === null || value === "") return value;
  if (typeof value !== "string") return kind === "text" ? value : HIDDEN;
  switch (kind) {
    case "name":
      return maskName(value) || HIDDEN;
    case "email":
      return maskEmail(value);
    case "phone":
      return maskPhoneInPlace(value);
    case "street":
      return HIDDEN;
    case "date":
      return maskDate(value);
    case "ip":
      return maskIp(value);
    case "text":
      return maskText(value);
  }
}
