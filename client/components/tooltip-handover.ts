/**
 * What the tooltip's light stand-in (LazyTooltip.tsx, in the first load) and its Radix version
 * (TooltipButton.tsx, loaded on first use) share, in a module of its own so neither imports the other.
 */

/** Radix's documented defaults, stated so a library upgrade cannot change them silently. */
export const TOOLTIP_DELAY_MS = 700;
export const TOOLTIP_SKIP_DELAY_MS = 300;

/** What the stand-in button was doing when the Radix one replaced it. */
export interface Handover {
  /** The button had focus (a click focuses it): the new one takes it, without opening the tooltip. */
  focused: boolean;
  hovered: boolean;
}
