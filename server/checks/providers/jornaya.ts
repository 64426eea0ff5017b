/**
 * Jornaya (Verisk) LeadiD, the Authenticate API (docs/lead-checks.md, "Providers"):
 * GET <JORNAYA_API_URL>/Authenticate?lac=<account code>&id=<LeadiD token> answers whether the token
 * is one Jornaya issued (`authenticate.authentic` 1) or not (0: not Jornaya's, or queried too often).
 *
 * Jornaya documents every token as 36 characters, XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX in hex, as
 * its campaign script writes it (upper case). A token of any other shape is refused without a
 * call: it cannot be authentic, and the visitor chose it, so it goes nowhere with our account code.
 */
import { z } from "zod";
import type { CheckAnswer, CheckInput, CheckProvider } from "../types";
import { exchange, failed, malformed, neverThrows, notAnAnswer, ok, readJson, unavailable, unexpectedStatus } from "./exchange";

export const JORNAYA_PROVIDER = "jornaya-leadid";

export const LEADID_TOKEN = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;

const authenticateAnswer = z.object({
  authenticate: z.object({
    // JSON gives a number; the same answer read from XML elsewhere gives a string.
    authentic: z.union([z.literal(0), z.literal(1), z.literal("0"), z.literal("1")]),
  }),
});

export interface JornayaSettings {
  /** JORNAYA_API_URL, without a trailing slash (server/config.ts). */
  apiUrl: string;
  accountCode: string;
}

export function jornayaProvider(settings: JornayaSettings): CheckProvider {
  return {
    kind: "jornaya",
    name: JORNAYA_PROVIDER,
    // The token alone: no contact details, so it may run before a ping.
    stage: "ping",
    cachedByPhone: false,
    run: (input, timeoutMs) => neverThrows(() => authenticate(settings, input, timeoutMs)),
  };
}

async function authenticate(settings: JornayaSettings, input: CheckInput, timeoutMs: number): Promise<CheckAnswer> {
  const token = input.leadidToken;
  if (!token) return failed("bad_shape", "no LeadiD token came with the lead");
  if (!LEADID_TOKEN.test(token)) return failed("bad_shape", "the LeadiD token is not a 36-character upper-case GUID");

  const query = new URLSearchParams({ lac: settings.accountCode, id: token });
  const result = await exchange(JORNAYA_PROVIDER, `${settings.apiUrl}/Authenticate?${query}`, { method: "GET", headers: { accept: "application/json" } }, timeoutMs);
  const none = notAnAnswer(result);
  if (none) return none;
  const status = result.httpStatus ?? 0;
  // Jornaya answers a token it does not know with authentic 0, so a 4xx is about our request (the account code).
  if (status >= 400 && status < 500) return unavailable("refused_request", `HTTP ${status}`, result.latencyMs);
  if (status < 200 || status >= 300) return unexpectedStatus(result);

  const body = readJson(result.body, authenticateAnswer);
  if (!body) return malformed(result, "an Authenticate answer");
  return String(body.authenticate.authentic) === "1"
    ? ok("authentic", "Jornaya issued this token", result.latencyMs)
    : failed("not_authentic", "Jornaya did not issue this token, or it was queried too often", result.latencyMs);
}
