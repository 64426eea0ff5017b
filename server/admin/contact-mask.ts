/**
 * Contact details masked for a screen others may see: enough to tell two leads apart, or to check
 * a caller's number against the last four digits, and no more. The leads list and a lead's page
 * (ops only) show these; analysts see no contact at all.
 */

/** "+14155550134" → "(•••) •••-0134". */
export function maskPhone(phone: string): string {
  return `(•••) •••-${phone.slice(-4)}`;
}

/** "jane.doe@example.com" → "j•••@example.com". */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  return at <= 0 ? "•••" : `${email.slice(0, 1)}•••${email.slice(at)}`;
}
