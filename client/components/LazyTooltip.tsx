/**
 * The "Why?" button: a toggletip for everyone, with a tooltip as a desktop hover hint on top.
 *
 * The toggletip is the HTML popover its `popoverTarget` names (ZipForm.tsx renders it): a click,
 * a tap, Enter or Space opens and closes it, Escape or a tap elsewhere closes it, and the browser
 * exposes the button as expanded or collapsed. That is all the browser's own work, so it needs no
 * JavaScript and works before the page hydrates (issue 32 item 6, decision 029).
 *
 * The tooltip's code (Radix Tooltip and floating-ui, about 19 KB gzip) is fetched the first time a
 * mouse or pen rests on the button, like sonner in Notifications.tsx: the landing page must stay
 * light on phones, and a phone never shows a tooltip (Radix opens one on hover, never on touch).
 * Keyboard focus does not load it: keyboard users have the toggletip, and the same text twice
 * (a tooltip on focus, then the toggletip on Enter) would only be noise.
 *
 * Until the code is there, a plain button with the same markup the Radix trigger renders stands
 * in (so the server's HTML and the first client render are identical: no hydration mismatch, and
 * the button works without JavaScript). When the code arrives the stand-in is replaced by the
 * Radix trigger, which is handed what the visitor was doing: focus moves to it, and a pointer
 * resting on it counts as a hover (Radix's open delay runs from then).
 */
import { useEffect, useRef, useState, type ReactNode } from "react";
import type * as TooltipButtonExports from "./TooltipButton";
import type { Handover } from "./tooltip-handover";

type TooltipButtonModule = typeof TooltipButtonExports;

let loading: Promise<TooltipButtonModule> | undefined;

function load(): Promise<TooltipButtonModule> {
  loading ??= import("./TooltipButton").catch((error: unknown) => {
    // Offline or a deploy replaced the chunk: let the next hover try again.
    loading = undefined;
    throw error;
  });
  return loading;
}

export interface LazyTooltipProps {
  /** The button's accessible name. */
  label: string;
  className: string;
  /** The button's visible text. */
  children: ReactNode;
  /** The tooltip's text. */
  content: ReactNode;
  /** The id of the popover (the toggletip) the button opens and closes. */
  popoverTarget: string;
}

export function LazyTooltip({ label, className, children, content, popoverTarget }: LazyTooltipProps) {
  const [loaded, setLoaded] = useState<{ module: TooltipButtonModule; handover: Handover }>();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const hovered = useRef(false);
  const mounted = useRef(true);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const requested = useRef(false);
  const start = () => {
    // Once: every pointermove calls this, and the handover is read when the code arrives.
    if (requested.current) return;
    requested.current = true;
    load().then(
      (module) => {
        if (!mounted.current) return;
        setLoaded({ module, handover: { focused: buttonRef.current === document.activeElement, hovered: hovered.current } });
      },
      () => {
        // The stand-in stays: the button and its toggletip still work, without the hover hint;
        // the next hover tries again.
        requested.current = false;
      },
    );
  };

  if (loaded) {
    const { TooltipButton } = loaded.module;
    const props: TooltipButtonExports.TooltipButtonProps = { label, className, content, popoverTarget, handover: loaded.handover };
    return <TooltipButton {...props}>{children}</TooltipButton>;
  }

  return (
    <button
      ref={buttonRef}
      type="button"
      className={className}
      aria-label={label}
      popoverTarget={popoverTarget}
      // What Radix's trigger renders while closed, so swapping it in changes nothing visible.
      data-state="closed"
      onPointerMove={(event) => {
        if (event.pointerType === "touch") return;
        hovered.current = true;
        start();
      }}
      onPointerLeave={() => {
        hovered.current = false;
      }}
      onPointerDown={() => {
        // Radix closes on a press and does not reopen until the pointer leaves: no hover to pass on.
        hovered.current = false;
      }}
    >
      {children}
    </button>
  );
}
