/**
 * POST /api/buyer-returns: a buyer reports that it returns a lead it accepted (a wrong number, a
 * duplicate in its own system, …), server to server. The buyer names itself in X-Buyer-Id and
 * signs the raw body with its BUYERS_FILE secret, as we sign what we send it (the signed pipeline
 * in server/api/pipeline.ts; docs/lead-delivery.md, "Returns"):
 *   { "reference": "LD-7K3M-Q9XD", "reason": "Disconnected number" }
 * 200 `{ status: "returned", reference }`; 401 unknown buyer or bad signature (one message);
 * 404 this buyer has no accepted delivery of that lead; 409 already returned; 400/413/415 bad
 * bodies; 429 over the per-client budget. Answers for the buyers in the live settings (a buyer unknown there gets 404).
 */
import type { Logger } from "pino";
import { z } from "zod";
import { HttpError } from "../http/http-error";
import { perClientLimit } from "../http/rate-limit";
import { isJsonObject } from "../http/guards";
import { signedCaller, type Endpoint } from "./pipeline";
import type { Database } from "../db/database";
import { activeSecrets, type Buyer, type LiveSettings } from "../delivery/buyers";
import { returnLead, type ReturnOutcome, type ReturnRequest } from "../delivery/returns";
import type { EventRecorder } from "../analytics/writer";
import { API_PREFIX } from "../../shared/routes";
import { LEAD_REFERENCE_PATTERN } from "../../shared/lead/api";

export const BUYER_RETURNS_PATH = `${API_PREFIX}/buyer-returns`;
export const BUYER_ID_HEADER = "X-Buyer-Id";
export const RETURN_REASON_MAX_LENGTH = 500;
/** Reports per client (IP address, see TRUST_PROXY) per 10 minutes: a buyer returning a day's batch at once fits. */
export const BUYER_RETURNS_RATE_LIMIT = 600;
/** A report is about 100 bytes; 2 KB leaves room for a long reason in any script, no more. */
const BODY_LIMIT = "2kb";

export const BAD_RETURN_MESSAGE = `Send a JSON object with "reference" (like LD-7K3M-Q9XD) and "reason" (1 to ${RETURN_REASON_MAX_LENGTH} characters).`;

const returnSchema = z.object({
  reference: z.string().trim().toUpperCase().regex(LEAD_REFERENCE_PATTERN),
  reason: z.string().trim().min(1).max(RETURN_REASON_MAX_LENGTH),
});

export interface BuyerReturnsOptions {
  /** Who may report, and the secrets each signs with (the buyers in force now, archived ones too: they may still return what they bought). */
  buyers: () => readonly Pick<Buyer, "id" | "secret" | "previousSecret" | "previousSecretUntil">[];
  /** Records the return: server/delivery/returns.ts over the store, logging to the request's logger. */
  returnLead(request: ReturnRequest, logger: Logger): Promise<ReturnOutcome>;
  /** Reports per client per 10 minutes (default BUYER_RETURNS_RATE_LIMIT). */
  rateLimit?: number;
}

/** The options over a store and the live settings, as the server builds them. */
export function buyerReturnsOver(db: Database, settings: () => LiveSettings, analytics?: EventRecorder): BuyerReturnsOptions {
  return { buyers: () => settings().buyers, returnLead: (request, logger) => returnLead({ db, buyers: settings(), logger, ...(analytics ? { analytics } : {}) }, request) };
}

export function buyerReturnEndpoints(options: BuyerReturnsOptions): Endpoint[] {
  return [
    {
      method: "post",
      path: BUYER_RETURNS_PATH,
      signedBody: {
        limit: BODY_LIMIT,
        budget: perClientLimit(options.rateLimit ?? BUYER_RETURNS_RATE_LIMIT, "buyer_returns_rate_limited"),
        callerHeader: BUYER_ID_HEADER,
        secretOf: (buyerId) => {
          const buyer = options.buyers().find((candidate) => candidate.id === buyerId);
          return buyer ? activeSecrets(buyer, new Date()) : undefined;
        },
      },
      async handle(req, res) {
        const parsed = isJsonObject(req.body) ? returnSchema.safeParse(req.body) : undefined;
        if (!parsed?.success) throw new HttpError(400, BAD_RETURN_MESSAGE);
        const { reference, reason } = parsed.data;
        const buyerId = signedCaller(res);
        const outcome = await options.returnLead({ reference, buyerId, reason, via: "api" }, req.log);
        switch (outcome.kind) {
          case "returned":
            res.status(200).json({ status: "returned", reference });
            return;
          case "already_returned":
            throw new HttpError(409, `Lead ${reference} was already returned.`, { reference });
          case "not_found":
            throw new HttpError(404, `You have no accepted delivery of lead ${reference}.`, { reference });
        }
      },
    },
  ];
}
