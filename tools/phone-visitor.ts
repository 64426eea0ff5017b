/**
 * One phone visitor from an ad, walked through the quote form and measured (issue 32): the
 * browser test (tests/e2e/phone-visitor.test.ts) asserts the issue's targets on its report, and
 * `npm run bench:phone` (scripts/bench-phone.ts) prints it with a person's pauses. One walker for
 * both, so the figures the bench prints are the ones the test holds the form to.
 *
 * The visitor has one car and one driver and uses only what a thumb and an on-screen keyboard
 * give: `locator.tap()` on the visible tile, field or button, and `page.keyboard` for typing
 * (characters counted, Enter counted apart). It scrolls only when what it must tap next is out
 * of view, and every change of the frame's or the page's scroll position counts as a scroll,
 * except the form's own return to the top when a new screen shows. On arriving at each screen it
 * records whether the screen fits (heading, every visible control and Next inside the frame's
 * visible part, no scrolling), whether the heading took focus, and the count text; after every
 * action, whether anything fixed or sticky lies over the focused control.
 *
 * Give it a Page in a context made with PHONE_CONTEXT (390×664 CSS px, touch): the size of a
 * phone with its browser bars (DESIGN.md, "Phone first").
 */
import type { Frame, Locator, Page } from "playwright";

export const PHONE_VIEWPORT = { width: 390, height: 664 } as const;
export const PHONE_CONTEXT = { viewport: PHONE_VIEWPORT, hasTouch: true, isMobile: true } as const;

/** The answers the visitor gives, as the tiles read and as typed. */
export const PHONE_VISITOR = {
  zip: "90210",
  vehicle: { year: "2020", make: "Toyota", model: "Camry", ownership: "Financing it", use: "Commuting to work or school", mileage: "10,000 – 15,000 miles" },
  driver: {
    firstName: "Ana",
    lastName: "Diaz-Ortega",
    /** Typed digit by digit: the field adds the slashes. */
    birth: "04151990",
    marital: "Married",
    license: "Valid US driver's license",
    licensedAt: "16",
    accidents: "None",
    tickets: "None",
    claims: "None",
    dui: "No",
    sr22: "No",
  },
  insurer: "GEICO",
  insuredFor: "1 to 3 years",
  /** The coverage tile starts with this word (its label goes on to explain it). */
  coverage: "Standard",
  residence: "I own my home",
  street: "123 Main St Apt 4",
  email: "ana.diaz@example.com",
  phone: "4155550134",
} as const;

/** The screen where scrolling is allowed (issue 32: the consent text must be readable, its submit reachable). */
export const SCROLLING_SCREEN = "contact";

export interface ScreenRecord {
  /** The FORM_SCREENS id (the fieldset's id without "rf-screen-"). */
  id: string;
  heading: string;
  /** Heading, every visible control and Next in view without scrolling. */
  fit: boolean;
  /** What was not, with where it lay (frame px). */
  outOfView: string[];
  /** Fixed or sticky elements found over a focused control while on this screen. */
  overlap: string[];
  /** Whether the heading had focus on arrival; null on the first screen (nothing advanced to it). */
  focusOnHeading: boolean | null;
  /** "Question 5 of 22" as shown on arrival. */
  count: string;
  /** Whether the count differs from the previous screen's; null on the first screen. */
  countChanged: boolean | null;
  /** Only the contact screen may scroll. */
  scrollAllowed: boolean;
  taps: number;
  chars: number;
  enters: number;
  scrolls: number;
}

export interface PhoneVisitReport {
  /** Distinct form screens seen (by heading), the thank-you not included. */
  screens: number;
  taps: number;
  /** Characters typed (Enter not included). */
  chars: number;
  enters: number;
  scrolls: number;
  /** Scrolls on screens other than the contact screen (the target: 0). */
  questionScrolls: number;
  records: ScreenRecord[];
  /** Screens that must fit and did not (the contact screen is not listed; see its record). */
  notFitting: string[];
  /** Every overlap found, "screen: element". */
  overlaps: string[];
  msFromFirstQuestionToThankYou: number;
  thankYou: boolean;
  /** Where the walk stopped short of the thank-you, and the messages shown there. */
  stuck?: string;
  /** The reference the thank-you shows. */
  reference: string | null;
}

export interface WalkOptions {
  /** The site's origin, e.g. http://127.0.0.1:3000. */
  origin: string;
  /** Campaign ids as an ad link carries them. */
  sid?: string;
  tid?: string;
  /**
   * A person's pace: reading each new screen (1.2 s + 40 ms a word of its heading), a 300 ms
   * think before each tap, typing at 5 characters a second. Off for tests.
   */
  pauses?: boolean;
  /** Progress lines, e.g. for the bench's stderr. */
  log?: (message: string) => void;
  /** Runs on each screen as it arrives, before it is answered, and on the thank-you (e.g. an accessibility check). */
  inspect?: (frame: Frame, screen: string) => Promise<void>;
  /**
   * One slip on the contact screen, corrected as a person does (issue 42): the field left short
   * (the phone's last 4 digits, or the email's ".com"), the consent box tapped, then, with the
   * field's message in view, a tap back into it and the rest typed. The same characters in all;
   * the one tap more is the tap back.
   */
  typo?: ContactTypo;
}

/** Which contact field the visitor gets wrong at first (WalkOptions.typo). */
export type ContactTypo = "email" | "phone";

/** How much of each field the slip leaves out: the phone's last 4 digits, the email's ".com". */
const TYPO_TAIL: Readonly<Record<ContactTypo, number>> = { phone: 4, email: 4 };

const FRAME_PATH = "/rapidfire.html";
const SCROLL_LOG = "__phoneVisitorScrolls";
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

interface ScrollEntry {
  x: number;
  y: number;
  /** The screen showing when the scroll happened: its fieldset id, or "done" for the thank-you. */
  screen: string;
}

interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/**
 * Logs every scroll of a document (page and frame alike: Playwright runs init scripts in child
 * frames too), with the screen showing at the time, so the form's own scroll to the top on a new
 * screen can be told apart from a scroll the visitor made or suffered.
 */
function recordScrolls(key: string): void {
  const log: ScrollEntry[] = [];
  (window as unknown as Record<string, ScrollEntry[]>)[key] = log;
  window.addEventListener(
    "scroll",
    () => {
      const screen = document.querySelector(".rf-done") ? "done" : (document.querySelector("fieldset.rf-step:not([hidden])")?.id ?? "");
      log.push({ x: window.scrollX, y: window.scrollY, screen });
    },
    { passive: true },
  );
}

/** The quote form's frame in the page. */
export function quoteFrame(page: Page): Frame {
  const frame = page.frames().find((candidate) => candidate.url() !== "about:blank" && new URL(candidate.url()).pathname === FRAME_PATH);
  if (!frame) throw new Error(`No ${FRAME_PATH} frame on ${page.url()}`);
  return frame;
}

/** Walks the form from the ad link to the thank-you and returns what it took. */
export async function walkPhoneVisitor(page: Page, options: WalkOptions): Promise<PhoneVisitReport> {
  const { origin, sid = "phone-sid", tid = "phone-tid", pauses = false, log = () => {}, inspect, typo } = options;
  const visitor = PHONE_VISITOR;
  await page.addInitScript(recordScrolls, SCROLL_LOG);
  await page.goto(`${origin}/?${new URLSearchParams({ zip: visitor.zip, sid, tid })}`);
  const iframe = page.locator("iframe.quote-frame");
  await iframe.waitFor();
  await page.waitForFunction((path) => [...document.querySelectorAll("iframe")].some((element) => element.contentWindow?.location.pathname === path), FRAME_PATH);
  const frame = quoteFrame(page);
  // Ready as a visitor sees it: the script has enabled Next and the ad's ZIP shows as a place.
  await frame.locator(".rf-next:not([disabled])").waitFor();
  await frame.locator(".rf-place:not([hidden])").waitFor();

  const records: ScreenRecord[] = [];
  const headings = new Set<string>();
  const totals = { taps: 0, chars: 0, enters: 0, scrolls: 0 };
  let here: ScreenRecord | undefined;
  /** The screen showing when the current action began: a scroll to the top on another one is the form's own. */
  let screenAtAction = "";

  const settle = () => frame.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
  const currentScreen = () =>
    frame.evaluate(() => (document.querySelector(".rf-done") ? "done" : (document.querySelector("fieldset.rf-step:not([hidden])")?.id ?? "")));

  /** The part of the frame the visitor sees, in page coordinates: the frame's box clipped by the page's viewport. */
  async function visibleRegion(): Promise<Box> {
    const box = await iframe.boundingBox();
    if (!box) throw new Error("The quote frame has no box");
    const viewport = page.viewportSize() ?? PHONE_VIEWPORT;
    return { top: Math.max(0, box.y), bottom: Math.min(viewport.height, box.y + box.height), left: Math.max(0, box.x), right: Math.min(viewport.width, box.x + box.width) };
  }
  const frameOffset = async () => {
    const box = await iframe.boundingBox();
    return { x: box?.x ?? 0, y: box?.y ?? 0 };
  };
  const inside = (box: Box, region: Box) => box.top >= region.top - 0.5 && box.bottom <= region.bottom + 0.5 && box.left >= region.left - 0.5 && box.right <= region.right + 0.5;

  /** Scrolls since the last look, page and frame: one gesture per action however many events it fired. */
  async function drainScrolls(): Promise<void> {
    const take = (key: string) => (window as unknown as Record<string, ScrollEntry[] | undefined>)[key]?.splice(0) ?? [];
    const [inPage, inFrame] = await Promise.all([page.evaluate(take, SCROLL_LOG), frame.evaluate(take, SCROLL_LOG)]);
    const own = (entry: ScrollEntry) => entry.x === 0 && entry.y === 0 && entry.screen !== screenAtAction;
    if (inPage.length > 0 || inFrame.some((entry) => !own(entry))) {
      totals.scrolls += 1;
      if (here) here.scrolls += 1;
    }
  }

  /** Fixed or sticky boxes (page and frame) over the focused control, if one has focus. */
  async function checkOverlap(): Promise<void> {
    if (!here) return;
    const layers = () => {
      const boxes: Array<{ name: string; top: number; bottom: number; left: number; right: number }> = [];
      for (const element of document.querySelectorAll("body *")) {
        const position = getComputedStyle(element).position;
        if (position !== "fixed" && position !== "sticky") continue;
        const rect = element.getBoundingClientRect();
        if (rect.width === 0 || rect.height === 0 || !element.checkVisibility()) continue;
        const name = `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}${element.classList.length ? `.${[...element.classList].join(".")}` : ""}`;
        boxes.push({ name, top: rect.top, bottom: rect.bottom, left: rect.left, right: rect.right });
      }
      const active = document.activeElement;
      const focused = active && active !== document.body && active.tagName !== "IFRAME" ? active.getBoundingClientRect() : null;
      return { boxes, focused: focused ? { top: focused.top, bottom: focused.bottom, left: focused.left, right: focused.right } : null };
    };
    const [inPage, inFrame, offset] = await Promise.all([page.evaluate(layers), frame.evaluate(layers), frameOffset()]);
    const focused = inFrame.focused ? { top: inFrame.focused.top + offset.y, bottom: inFrame.focused.bottom + offset.y, left: inFrame.focused.left + offset.x, right: inFrame.focused.right + offset.x } : inPage.focused;
    if (!focused) return;
    const shifted = inFrame.boxes.map((box) => ({ ...box, top: box.top + offset.y, bottom: box.bottom + offset.y, left: box.left + offset.x, right: box.right + offset.x }));
    for (const box of [...inPage.boxes, ...shifted]) {
      const overlaps = Math.min(box.bottom, focused.bottom) - Math.max(box.top, focused.top) > 0 && Math.min(box.right, focused.right) - Math.max(box.left, focused.left) > 0;
      if (overlaps && !here.overlap.includes(box.name)) here.overlap.push(box.name);
    }
  }

  /** Runs one input action, then counts the scrolls it caused and looks for overlays on the focus. */
  async function act(action: () => Promise<unknown>): Promise<void> {
    await drainScrolls();
    screenAtAction = await currentScreen();
    await action();
    await settle();
    await drainScrolls();
    await checkOverlap();
  }

  /** Scrolls `target` into view only when it is not wholly in view; counted by act(). */
  async function reveal(target: Locator): Promise<void> {
    const box = await target.boundingBox();
    const region = await visibleRegion();
    if (box && inside({ top: box.y, bottom: box.y + box.height, left: box.x, right: box.x + box.width }, region)) return;
    log(`  scrolls to ${await target.evaluate((element) => element.textContent?.trim().slice(0, 40) ?? element.tagName)}`);
    await act(() => target.evaluate((element) => element.scrollIntoView({ block: "center" })));
  }

  /** A tap on the target's middle, or (`atEnd`) near its right end: where a finger goes to add to a field's text. */
  async function tap(target: Locator, atEnd = false): Promise<void> {
    await target.waitFor({ state: "visible" });
    if (pauses) await sleep(300);
    await reveal(target);
    const box = atEnd ? await target.boundingBox() : null;
    await act(() => target.tap(box ? { position: { x: box.width - 12, y: box.height / 2 } } : {}));
    totals.taps += 1;
    if (here) here.taps += 1;
  }

  async function type(text: string): Promise<void> {
    await act(() => page.keyboard.type(text, pauses ? { delay: 200 } : {}));
    totals.chars += text.length;
    if (here) here.chars += text.length;
  }

  async function enter(): Promise<void> {
    await act(() => page.keyboard.press("Enter"));
    totals.enters += 1;
    if (here) here.enters += 1;
  }

  const step = (id: string) => frame.locator(`fieldset#rf-screen-${id}`);
  /** The visible tile whose text is `text` (or starts with it, for a label that explains itself). */
  const option = (id: string, text: string, prefix = false) =>
    step(id)
      .locator("label.rf-option:visible")
      .filter({ hasText: new RegExp(`^\\s*${escapeRegExp(text)}${prefix ? "" : "\\s*$"}`) });
  const field = (name: string) => step(here?.id ?? "").locator(`input[name="${name}"]`);
  const next = () => frame.locator(".rf-next");

  /** What the visitor does on each screen, by its id. */
  const answer: Record<string, () => Promise<void>> = {
    "vehicle-year": () => tap(option("vehicle-year", visitor.vehicle.year)),
    "vehicle-make": () => tap(option("vehicle-make", visitor.vehicle.make)),
    "vehicle-model": () => tap(step("vehicle-model").locator(".rf-suggestion", { hasText: new RegExp(`^${escapeRegExp(visitor.vehicle.model)}$`) })),
    "vehicle-ownership": () => tap(option("vehicle-ownership", visitor.vehicle.ownership)),
    "vehicle-use": () => tap(option("vehicle-use", visitor.vehicle.use)),
    "vehicle-mileage": () => tap(option("vehicle-mileage", visitor.vehicle.mileage)),
    vehicles: () => tap(next()),
    "driver-name": async () => {
      await tap(field("firstName"));
      await type(visitor.driver.firstName);
      await enter();
      await type(visitor.driver.lastName);
      await enter();
    },
    "driver-birth": async () => {
      await tap(field("dateOfBirth"));
      await type(visitor.driver.birth);
      await enter();
    },
    "driver-marital": () => tap(option("driver-marital", visitor.driver.marital)),
    "driver-license": () => tap(option("driver-license", visitor.driver.license)),
    "driver-licensed-age": async () => {
      await tap(field("ageFirstLicensed"));
      await type(visitor.driver.licensedAt);
      await enter();
    },
    "driver-accidents": () => tap(option("driver-accidents", visitor.driver.accidents)),
    "driver-tickets": () => tap(option("driver-tickets", visitor.driver.tickets)),
    "driver-claims": () => tap(option("driver-claims", visitor.driver.claims)),
    "driver-dui": () => tap(option("driver-dui", visitor.driver.dui)),
    "driver-sr22": () => tap(option("driver-sr22", visitor.driver.sr22)),
    drivers: () => tap(next()),
    insurer: () => tap(option("insurer", visitor.insurer)),
    "insured-for": () => tap(option("insured-for", visitor.insuredFor)),
    coverage: () => tap(option("coverage", visitor.coverage, true)),
    residence: () => tap(option("residence", visitor.residence)),
    contact: async () => {
      // The slip, if any: what is typed first, and the rest typed after the tap back.
      const typed = { email: visitor.email as string, phone: visitor.phone as string };
      const left = typo ? typed[typo].slice(-TYPO_TAIL[typo]) : "";
      if (typo) typed[typo] = typed[typo].slice(0, -TYPO_TAIL[typo]);
      await tap(field("streetAddress"));
      await type(visitor.street);
      await enter();
      await type(typed.email);
      await enter();
      await type(typed.phone);
      await tap(step("contact").locator('input[name="consent"]'));
      if (typo) {
        // The field's message is what the visitor reads next; then back into the field, to its end.
        await step("contact").locator(`#rf-${typo}-error:not(:empty)`).waitFor();
        await tap(field(typo), true);
        await type(left);
      }
      await tap(next());
    },
  };

  /** The showing screen's heading, controls and Next, against the frame's visible part. */
  async function measureFit(): Promise<{ fit: boolean; outOfView: string[] }> {
    const [region, offset] = await Promise.all([visibleRegion(), frameOffset()]);
    const inFrame = { top: region.top - offset.y, bottom: region.bottom - offset.y, left: region.left - offset.x, right: region.right - offset.x };
    const parts = await frame.evaluate(() => {
      const screen = document.querySelector("fieldset.rf-step:not([hidden])");
      if (!screen) return [];
      const controls = [...screen.querySelectorAll("input, select, textarea, button, summary, a[href], label.rf-option")].map((element) =>
        element.matches("input[type=radio]") ? (element.closest("label.rf-option") ?? element) : element,
      );
      const unique = [...new Set([screen.querySelector("h2"), ...controls, document.querySelector(".rf-next")])].filter((element): element is Element => element !== null);
      return unique
        .filter((element) => element.getClientRects().length > 0 && element.checkVisibility({ visibilityProperty: true }) && !element.closest(".rf-visually-hidden"))
        .map((element) => {
          const rect = element.getBoundingClientRect();
          const text = (element instanceof HTMLInputElement ? element.name || element.type : (element.textContent ?? "")).trim().replace(/\s+/g, " ").slice(0, 30);
          return { name: `${element.tagName.toLowerCase()}${element.classList.length ? `.${element.classList[0]}` : ""} "${text}"`, top: rect.top, bottom: rect.bottom, left: rect.left, right: rect.right };
        });
    });
    const outOfView = parts.filter((part) => !inside(part, inFrame)).map((part) => `${part.name} at y ${Math.round(part.top)}–${Math.round(part.bottom)} (visible ${Math.round(inFrame.top)}–${Math.round(inFrame.bottom)})`);
    return { fit: outOfView.length === 0, outOfView };
  }

  /** Records the screen just shown: fit, heading focus, count; then the reading pause. */
  async function arrive(id: string, first: boolean): Promise<ScreenRecord> {
    const shown = step(id);
    // The catalog's models come after the screen: judge the screen as the visitor answers it.
    if (id === "vehicle-model") await shown.locator(".rf-suggestion").first().waitFor();
    await settle();
    const heading = ((await shown.locator("h2").textContent()) ?? "").trim();
    const focusOnHeading = first
      ? null
      : await frame.evaluate((screenId) => {
          const active = document.activeElement;
          return active?.tagName === "H2" && active.closest("fieldset")?.id === `rf-screen-${screenId}` && window.parent.document.activeElement?.tagName === "IFRAME";
        }, id);
    const count = ((await frame.locator(".rf-count").textContent()) ?? "").trim();
    const previous = records.at(-1);
    const { fit, outOfView } = await measureFit();
    const record: ScreenRecord = {
      id,
      heading,
      fit,
      outOfView,
      overlap: [],
      focusOnHeading,
      count,
      countChanged: previous ? previous.count !== count : null,
      scrollAllowed: id === SCROLLING_SCREEN,
      taps: 0,
      chars: 0,
      enters: 0,
      scrolls: 0,
    };
    records.push(record);
    headings.add(heading);
    log(`${count.padEnd(18)} ${heading}${fit ? "" : record.scrollAllowed ? "  (longer than the screen: allowed here)" : "  (does not fit)"}`);
    return record;
  }

  let startedAt = 0;
  let stuck: string | undefined;
  let screen = (await currentScreen()).replace(/^rf-screen-/, "");
  for (let visited = 0; screen !== "done"; visited += 1) {
    if (visited >= 40) throw new Error(`The walk did not reach the thank-you in 40 screens; last: ${screen}`);
    const action = answer[screen];
    if (!action) throw new Error(`The phone visitor has no answer for screen "${screen}"`);
    here = await arrive(screen, visited === 0);
    if (visited === 0) startedAt = performance.now();
    await inspect?.(frame, screen);
    if (pauses) await sleep(1_200 + 40 * here.heading.split(/\s+/).length);
    await action();
    const left = `rf-screen-${screen}`;
    try {
      await frame.waitForFunction((from) => (document.querySelector(".rf-done") ? true : document.querySelector("fieldset.rf-step:not([hidden])")?.id !== from), left, { timeout: 10_000 });
    } catch {
      // Reported, not thrown: the bench prints where a visitor would have been left.
      const problems = await frame.locator(".rf-error:visible, .rf-form-error:visible").allTextContents();
      stuck = `${screen}: ${problems.join(" | ") || "no message shown"}`;
      break;
    }
    screen = (await currentScreen()).replace(/^rf-screen-/, "");
  }
  const thankYou = stuck === undefined;
  if (thankYou) await frame.locator(".rf-done h2").waitFor();
  if (thankYou) await inspect?.(frame, "done");
  const msFromFirstQuestionToThankYou = Math.round(performance.now() - startedAt);
  await settle();
  // The thank-you's own return to the top is not a scroll; anything else still pending is.
  screenAtAction = "rf-screen-contact";
  await drainScrolls();
  const reference = thankYou ? ((await frame.locator(".rf-reference").textContent()) ?? "").trim() || null : null;

  return {
    screens: headings.size,
    ...totals,
    questionScrolls: records.filter((record) => !record.scrollAllowed).reduce((sum, record) => sum + record.scrolls, 0),
    records,
    notFitting: records.filter((record) => !record.fit && !record.scrollAllowed).map((record) => record.id),
    overlaps: records.flatMap((record) => record.overlap.map((name) => `${record.id}: ${name}`)),
    msFromFirstQuestionToThankYou,
    thankYou,
    stuck,
    reference,
  };
}
