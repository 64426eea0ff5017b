/** The hidden field every console form sends back; the server refuses a form without it (CSRF). */
export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}
