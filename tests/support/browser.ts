/**
 * Launches a Chromium for Playwright (tools/chromium.ts finds it and says what is missing).
 */
import { chromium, type Browser } from "playwright";
import { CHROMIUM_ARGS, findChromium } from "../../tools/chromium";

export { CHROMIUM_ARGS, findChromium };

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true });
}
