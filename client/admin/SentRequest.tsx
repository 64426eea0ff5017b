/**
 * A request as sent to a buyer, masked by the server (credentials hidden, contact masked): the
 * request line, its headers and its body as plain text. React escapes it; nothing is interpreted.
 */
import type { SentRequestView } from "../../shared/admin-views";

export function sentRequestText(request: SentRequestView): string {
  const head = [`${request.method} ${request.url}`, ...request.headers.map((header) => `${header.name}: ${header.value}`)].join("\n");
  return request.body !== null ? `${head}\n\n${request.body}` : head;
}

/** The request in a focusable block, so it scrolls by keyboard too. */
export function SentRequest({ request, label }: { request: SentRequestView; label: string }) {
  return (
    <pre className="masked-request" tabIndex={0} aria-label={label}>
      <code>{sentRequestText(request)}</code>
    </pre>
  );
}
