import type { Flash } from "../../shared/admin-views";

/**
 * The one-time message after an action. role=status so screen readers announce it; an error
 * says "Error:" in words as well as in colour.
 */
export function FlashMessage({ flash }: { flash: Flash }) {
  return (
    <p className={`flash flash-${flash.kind}`} role="status">
      {flash.kind === "error" ? <strong>Error: </strong> : null}
      {flash.text}
    </p>
  );
}
