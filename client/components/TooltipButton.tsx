/**
 * The Radix tooltip itself, in a chunk of its own that LazyTooltip.tsx loads on a mouse or pen's
 * first hover (never import it statically: that would put Radix back into the landing page's
 * first load). It is a hover hint on top of the button's toggletip (the popover named by
 * `popoverTarget`, decision 029): it never opens on focus, since keyboard users open the
 * toggletip with Enter, nor while the toggletip shows the same text. It brings its own provider,
 * with the delays the shell used to set for the whole app: the site has one tooltip, so there is
 * no other tooltip to share the provider's skip-delay with.
 */
import { useLayoutEffect, useRef, useState, type ReactNode } from "react";
import * as Tooltip from "@radix-ui/react-tooltip";
import { TOOLTIP_DELAY_MS, TOOLTIP_SKIP_DELAY_MS, type Handover } from "./tooltip-handover";

export interface TooltipButtonProps {
  label: string;
  className: string;
  children?: ReactNode;
  content: ReactNode;
  popoverTarget: string;
  handover: Handover;
}

/** Gap between the button and the tooltip, in CSS pixels. */
const SIDE_OFFSET = 6;

export function TooltipButton({ label, className, children, content, popoverTarget, handover }: TooltipButtonProps) {
  const buttonRef = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);

  // Layout effect: the stand-in has just left the document, and focus must move before the
  // browser paints or runs anything else, so nothing sees it on <body>.
  useLayoutEffect(() => {
    const button = buttonRef.current;
    if (!button) return;
    if (handover.focused) button.focus({ preventScroll: true });
    if (handover.hovered) {
      // Radix starts its open delay on the first pointermove over the trigger; the visitor's
      // pointer already moved there (that is what loaded this code), so pass that move on.
      button.dispatchEvent(new PointerEvent("pointermove", { bubbles: true, pointerType: "mouse" }));
    }
    // Once, for the moment of the swap: later changes are the trigger's own events.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return (
    <Tooltip.Provider delayDuration={TOOLTIP_DELAY_MS} skipDelayDuration={TOOLTIP_SKIP_DELAY_MS}>
      <Tooltip.Root
        open={open}
        onOpenChange={(next) => {
          // The toggletip, once open, already shows this text (and sits in the top layer, above the tooltip).
          setOpen(next && !document.getElementById(popoverTarget)?.matches(":popover-open"));
        }}
      >
        <Tooltip.Trigger asChild>
          <button
            ref={buttonRef}
            type="button"
            className={className}
            aria-label={label}
            popoverTarget={popoverTarget}
            // Radix skips its own handler (opening) when this one prevents the default.
            onFocus={(event) => event.preventDefault()}
          >
            {children}
          </button>
        </Tooltip.Trigger>
        <Tooltip.Portal>
          <Tooltip.Content className="tooltip" sideOffset={SIDE_OFFSET}>
            {content}
            <Tooltip.Arrow className="tooltip-arrow" />
          </Tooltip.Content>
        </Tooltip.Portal>
      </Tooltip.Root>
    </Tooltip.Provider>
  );
}
