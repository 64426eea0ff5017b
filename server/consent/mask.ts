/**
 * The contact details on a consent certificate, masked: enough for the buyer holding the lead to
 * match it ("(415) ***-**34", "a***@example.com", "A*** D***"), too little to learn them from a
 * link that leaked.
 */

/** "+14155550134" → "(415) ***-**34"; anything else keeps only its last two digits. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, "");
  const nanp = /^1?(\d{3})\d{5}(\d{2})$/.exec(digits);
  if (nanp) return `(${nanp[1]}) ***-**${nanp[2]}`;
  return digits.length > 2 ? `${"*".repeat(digits.length - 2)}${digits.slice(-2)}` : "**";
}

/** "ana.diaz@example.com" → "a***@example.com": the first character and the domain. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "***";
  const [first = ""] = Array.from(email.slice(0, at));
  return `${first}***@${email.slice(at + 1)}`;
}

/** "José Ángel", "Núñez" → "J*** N***": each name's first letter. */
export function maskName(...names: ReadonlyArray<string | null>): string {
  return names
    .filter((name): name is string => Boolean(name?.trim()))
    .map((name) => `${Array.from(name.trim())[0]}***`)
    .join(" ");
}
