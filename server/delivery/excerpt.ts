/**
 * What is kept of a buyer's or source's answer: a leaf module (no imports), so the spec engine's
 * answer rules (server/delivery/spec/answer.ts) use the same excerpt as the delivery worker without
 * a cycle through the buyers' schema.
 */

/** A buyer's answer, cut short and with anything that looks like an email address or a phone number masked. */
export function responseExcerpt(text: string): string {
  return text
    .slice(0, 300)
    .replace(/[^\s@"'<>]+@[^\s@"'<>]+\.[A-Za-z]{2,}/g, "[email]")
    .replace(/\+?\d[\d\s().-]{8,}\d/g, "[number]")
    .slice(0, 200);
}
