// @vitest-environment happy-dom
/**
 * The lazily loaded tooltip (client/components/LazyTooltip.tsx): its stand-in renders exactly the
 * markup of the Radix trigger it is later swapped for (so the server HTML and hydration are as
 * before, and the swap changes nothing visible), and the swap hands keyboard focus over.
 * The browser behaviour (hover, the network requests) is pinned in tests/e2e/landing.test.ts.
 */
import { createElement, act } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it } from "vitest";
import { LazyTooltip, type LazyTooltipProps } from "../../client/components/LazyTooltip";
import { TooltipButton } from "../../client/components/TooltipButton";

// React's act() warns unless the environment says it is a test.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const props: LazyTooltipProps = {
  className: "zip-why",
  label: "Why we ask for your ZIP code",
  content: "Rates depend on where your car is parked.",
  children: "Why?",
};

describe("the stand-in button", () => {
  it("renders the same markup as the Radix trigger, with the accessible name and no tooltip", () => {
    const standIn = renderToStaticMarkup(createElement(LazyTooltip, props));
    const radix = renderToStaticMarkup(
      createElement(TooltipButton, { ...props, handover: { focused: false, focusedByPointer: false, hovered: false } }),
    );
    expect(standIn).toBe(radix);
    expect(standIn).toBe('<button type="button" class="zip-why" aria-label="Why we ask for your ZIP code" data-state="closed">Why?</button>');
  });
});

describe("the swap to the Radix tooltip", () => {
  let root: Root | undefined;
  afterEach(() => {
    act(() => root?.unmount());
    root = undefined;
    document.body.innerHTML = "";
  });

  it("keeps keyboard focus on the button and opens the tooltip, as focusing the Radix trigger does", async () => {
    const container = document.body.appendChild(document.createElement("div"));
    root = createRoot(container);
    act(() => root!.render(createElement(LazyTooltip, props)));
    const standIn = container.querySelector("button")!;
    await act(async () => {
      standIn.focus();
    });
    // The import() resolves, then React swaps the button.
    await expect.poll(() => container.querySelector("button") !== standIn, { timeout: 5_000 }).toBe(true);
    const button = container.querySelector("button")!;
    expect(document.activeElement).toBe(button);
    await expect.poll(() => document.querySelector('[role="tooltip"]')?.textContent, { timeout: 5_000 }).toBe(props.content);
    expect(button.getAttribute("aria-label")).toBe(props.label);
    expect(button.getAttribute("data-state")).not.toBe("closed");
  });
});
