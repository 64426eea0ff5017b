/**
 * A button with a tooltip whose code (Radix Tooltip and floating-ui, about 19 KB gzip) is
 * fetched the first time a visitor could see a tooltip, like sonner in Notifications.tsx: the
 * landing page must stay light on phones, and a phone never shows one (Radix opens a tooltip on
 * mouse or pen hover and on keyboard focus, never on touch).
 *
 * Until the code is there, a plain button with the same markup the Radix trigger renders stands
 * in (so the server's HTML and the first client render are identical: no hydration mismatch, and
 * the trigger and its accessible name are there without JavaScript). The first hover or keyboard
 * focus loads the code; the stand-in is then replaced by the Radix trigger, which is handed what
 * the visitor was doing: focus moves to it (and opens the tooltip if it was keyboard focus, as
 * Radix does), and a pointer resting on it counts as a hover (Radix's open delay runs from then).
 */
import { useEffect, useRef, useState, type ReactNode } from "react";
import type * as TooltipButtonExports from "./TooltipButton";
import type { Handover } from "./tooltip-handover";

type TooltipButtonModule = typeof TooltipButtonExports;

let loading: Promise<TooltipButtonModule> | undefined;

function load(): Promise<TooltipButtonModule> {
  loading ??= import("./TooltipButton").catch((error: unknown) => {
    // Offline or a deploy replaced the chunk: let the next hover or focus try again.
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
}

export function LazyTooltip({ label, className, children, content }: LazyTooltipProps) {
  const [loaded, setLoaded] = useState<{ module: TooltipButtonModule; handover: Handover }>();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const focusedByPointer = useRef(false);
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
        const focused = buttonRef.current !== null && buttonRef.current === document.activeElement;
        setLoaded({ module, handover: { focused, focusedByPointer: focused && focusedByPointer.current, hovered: hovered.current } });
      },
      () => {
        // The stand-in stays: the button and its accessible name still work, without the tooltip;
        // the next hover or focus tries again.
        requested.current = false;
      },
    );
  };

  if (loaded) {
    const { TooltipButton } = loaded.module;
    const props: TooltipButtonExports.TooltipButtonProps = { label, className, content, handover: loaded.handover };
    return <TooltipButton {...props}>{children}</TooltipButton>;
  }

  return (
    <button
      ref={buttonRef}
      type="button"
      className={className}
      aria-label={label}
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
      onFocus={(event) => {
        // Radix opens on focus, but a click or tap that focuses the button closes it again at
        // once (a tap's focus even comes after its pointerup). What stays is keyboard focus, the
        // focus the browser marks :focus-visible: only that loads the code, so a phone never does.
        const byKeyboard = event.currentTarget.matches(":focus-visible");
        focusedByPointer.current = !byKeyboard;
        if (byKeyboard) start();
      }}
    >
      {children}
    </button>
  );
}
