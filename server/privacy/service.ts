/**
 * Receiving a privacy request: validate with the shared rules, store it durably (once per form
 * submission) with, for an opt-out, the person's email and phone on the suppression list in the
 * same transaction (./requests.ts), and log the event without the person's contact details.
 */
import type { Request } from "express";
import { validatePrivacyRequest, type RawPrivacyRequest } from "../../shared/privacy-request";
import type { Database } from "../db/database";
import type { CreateResult, NewPrivacyRequest, PrivacyRequestRepository } from "../db/privacy-requests";
import type { PrivacySubmitOutcome } from "../../shared/render-contract";
import { hasGpc } from "../http/gpc";
import { dueDate } from "./deadlines";
import { storePrivacyRequest, type StoreResult } from "./requests";

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface PrivacyService {
  submit(req: Request, raw: RawPrivacyRequest, submissionId: unknown): Promise<PrivacySubmitOutcome>;
}

/**
 * The service over the database. Given only the repository (the call sites written before the
 * suppression list), requests are stored but opt-outs do NOT reach the suppression list: pass the
 * database. `onQueued` is told when a revocation queued webhooks to buyers (the worker's nudge).
 */
export function createPrivacyService(store: Database | PrivacyRequestRepository, options: { onQueued?: () => void } = {}): PrivacyService {
  const save: (request: NewPrivacyRequest) => Promise<CreateResult | StoreResult> =
    "builder" in store ? (request) => storePrivacyRequest(store, request, "web_form") : (request) => store.create(request);
  return {
    async submit(req, raw, submissionId) {
      if (typeof submissionId !== "string" || !UUID_PATTERN.test(submissionId)) {
        return { kind: "expired" };
      }
      const checked = validatePrivacyRequest(raw);
      if (!checked.ok) return { kind: "invalid", errors: checked.errors };
      const receivedAt = new Date();
      const dueAt = dueDate(checked.value.requestType, receivedAt);
      const gpc = hasGpc(req);
      const result = await save({ ...checked.value, submissionId: submissionId.toLowerCase(), gpc, receivedAt, dueAt });
      if (!result.created) {
        req.log.info({ event: "privacy_request_duplicate", reference: result.duplicateOf }, "privacy request submitted again");
        return { kind: "duplicate", reference: result.duplicateOf };
      }
      // A revocation queued consent.revoked webhooks: the delivery worker sends them now, not at its next poll.
      if ("webhooks" in result && result.webhooks > 0) options.onQueued?.();
      // Never the email, phone, state or details: only what ops need to find the request.
      req.log.info(
        { event: "privacy_request_received", reference: result.reference, requestType: checked.value.requestType, gpc, dueAt: dueAt.toISOString() },
        "privacy request received",
      );
      return { kind: "created", reference: result.reference, dueAt: dueAt.toISOString() };
    },
  };
}
