/**
 * Contact details as every form on the site takes them: US phone numbers normalised to E.164 and
 * email addresses. Shared by the privacy-request form and the quote form, in the browser and on
 * the server, so a number or address accepted on one side is never refused on the other.
 */
import * as z from "zod/mini";

/** RFC 5321's limit on a forward path. */
export const EMAIL_MAX_LENGTH = 254;

/**
 * A US phone number as people type it ("(415) 555-0134", "415.555.0134", "+1 415 555 0134"),
 * normalised to E.164 (+14155550134). NANP rules: area code and exchange start with 2–9.
 * Returns undefined when it is not a valid US number.
 */
export function normalizeUsPhone(input: string): string | undefined {
  const trimmed = input.trim();
  if (!/^[\d\s().+-]{10,20}$/.test(trimmed)) return undefined;
  // "+45 32 12 34 56" has ten digits too: a "+" must be followed by the US country code, 1.
  if (trimmed.includes("+") && !/^\+\s*1[\s().-]*[2-9]/.test(trimmed)) return undefined;
  let digits = input.replace(/\D/g, "");
  if (digits.length === 11 && digits.startsWith("1")) digits = digits.slice(1);
  if (!/^[2-9]\d{2}[2-9]\d{6}$/.test(digits)) return undefined;
  return `+1${digits}`;
}

/** "+14155550134" → "(415) 555-0134", as the thank-you step reads the number back. */
export function formatUsPhone(e164: string): string {
  const digits = e164.replace(/^\+1/, "");
  return `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`;
}

export const emailSchema = z.string().check(z.maxLength(EMAIL_MAX_LENGTH), z.email());

/** Text in, E.164 out; an issue when it is not a US number. */
export const usPhoneSchema = z.pipe(
  z.string(),
  z.transform((value, ctx) => {
    const normalized = normalizeUsPhone(value);
    if (normalized === undefined) ctx.issues.push({ code: "custom", input: value, message: "not a US phone number" });
    return normalized ?? "";
  }),
);

/** Trimmed text, or undefined when the value is not a string or is blank (JSON null included). */
export function trimmedText(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** "1-800-555-0142" → "tel:+18005550142"; "+14155550101" → "tel:+14155550101" (US numbers, for a tap to call). */
export function telUri(phone: string): string {
  const digits = phone.replace(/\D/g, "");
  if (digits.length === 10) return `tel:+1${digits}`;
  if (digits.length === 11 && digits.startsWith("1")) return `tel:+${digits}`;
  throw new Error(`Cannot make a tel: link from the phone number "${phone}"`);
}
