// @vitest-environment happy-dom
/**
 * The "Why?" button (client/components/LazyTooltip.tsx): its stand-in renders exactly the markup
 * of the Radix trigger it is later swapped for, popover invoker included (so the server HTML and
 * hydration are as before, the toggletip works before and after the swap, and the swap changes
 * nothing visible); only a mouse hover loads the tooltip's code, never focus; the swap hands
 * focus over without opening the tooltip. The browser behaviour (tap, keyboard, hover, the
 * network requests) is pinned in tests/e2e/landing.test.ts.
 */
import { createElement, act } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it } from "vitest";
import { LazyTooltip, type LazyTooltipProps } from "../../client/components/LazyTooltip";
import { TooltipButton } from "../../client/components/TooltipButton";
import { TOOLTIP_DELAY_MS } from "../../client/components/tooltip-handover";

// React's act() warns unless the environment says it is a test.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const props: LazyTooltipProps = {
  className: "zip-why",
  label: "Why we ask for your ZIP code",
  content: "Rates depend on where your car is parked.",
  popoverTarget: "zip-why-text",
  children: "Why?",
};

describe("the stand-in button", () => {
  it("renders the same markup as the Radix trigger: the toggletip's invoker, with the accessible name and no tooltip", () => {
    const standIn = renderToStaticMarkup(createElement(LazyTooltip, props));
    const radix = renderToStaticMarkup(createElement(TooltipButton, { ...props, handover: { focused: false, hovered: false } }));
    expect(standIn).toBe(radix);
    expect(standIn).toBe(
      // React writes the attribute as the prop is spelled; HTML attribute names are case-insensitive.
      '<button type="button" class="zip-why" aria-label="Why we ask for your ZIP code" popoverTarget="zip-why-text" data-state="closed">Why?</button>',
    );
  });
});

describe("the swap to the Radix tooltip", () => {
  let root: Root | undefined;
  afterEach(() => {
    act(() => root?.unmount());
    root = undefined;
    document.body.innerHTML = "";
  });

  function renderStandIn(): { container: HTMLElement; standIn: HTMLButtonElement } {
    const container = document.body.appendChild(document.createElement("div"));
    root = createRoot(container);
    act(() => root!.render(createElement(LazyTooltip, props)));
    return { container, standIn: container.querySelector("button")! };
  }

  it("does not happen on keyboard focus: the keyboard opens the toggletip, not a tooltip", async () => {
    const { container, standIn } = renderStandIn();
    await act(async () => {
      standIn.focus();
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    expect(container.querySelector("button")).toBe(standIn);
    expect(document.querySelector('[role="tooltip"]')).toBeNull();
  });

  it("happens on a mouse hover, keeps focus on the button without opening on it, then opens as the hover lasts", async () => {
    const { container, standIn } = renderStandIn();
    // Focused as a click focuses it, then the pointer moves on it.
    standIn.focus();
    await act(async () => {
      standIn.dispatchEvent(new PointerEvent("pointermove", { bubbles: true, pointerType: "mouse" }));
    });
    // The import() resolves, then React swaps the button.
    await expect.poll(() => container.querySelector("button") !== standIn, { timeout: 5_000 }).toBe(true);
    const button = container.querySelector("button")!;
    expect(document.activeElement).toBe(button);
    expect(button.getAttribute("popovertarget")).toBe(props.popoverTarget);
    expect(button.getAttribute("aria-label")).toBe(props.label);
    // Focus handed over opens nothing; the hover handed over opens the tooltip after Radix's delay.
    expect(document.querySelector('[role="tooltip"]')).toBeNull();
    await expect
      .poll(() => document.querySelector('[role="tooltip"]')?.textContent, { timeout: TOOLTIP_DELAY_MS + 5_000 })
      .toBe(props.content);
  });

  it("does not happen on a touch: a tap opens the toggletip, and a phone never loads the tooltip", async () => {
    const { container, standIn } = renderStandIn();
    await act(async () => {
      standIn.dispatchEvent(new PointerEvent("pointermove", { bubbles: true, pointerType: "touch" }));
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    expect(container.querySelector("button")).toBe(standIn);
  });
});
