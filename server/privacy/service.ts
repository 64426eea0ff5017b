/**
 * Receiving a privacy request: validate with the shared rules, store it durably (once per form
 * submission), and log the event without the person's contact details.
 */
import type { Request } from "express";
import { validatePrivacyRequest, type RawPrivacyRequest } from "../../shared/privacy-request";
import type { PrivacyRequestRepository } from "../db/privacy-requests";
import type { PrivacySubmitOutcome } from "../../shared/render-contract";
import { hasGpc } from "../http/gpc";
import { dueDate } from "./deadlines";

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Moved to server/http/gpc.ts; re-exported until server/leads/service.ts imports it from there. */

export interface PrivacyService {
  submit(req: Request, raw: RawPrivacyRequest, submissionId: unknown): Promise<PrivacySubmitOutcome>;
}

export function createPrivacyService(repository: PrivacyRequestRepository): PrivacyService {
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
      const result = await repository.create({ ...checked.value, submissionId: submissionId.toLowerCase(), gpc, receivedAt, dueAt });
      if (!result.created) {
        req.log.info({ event: "privacy_request_duplicate", reference: result.duplicateOf }, "privacy request submitted again");
        return { kind: "duplicate", reference: result.duplicateOf };
      }
      // Never the email, phone, state or details: only what ops need to find the request.
      req.log.info(
        { event: "privacy_request_received", reference: result.reference, requestType: checked.value.requestType, gpc, dueAt: dueAt.toISOString() },
        "privacy request received",
      );
      return { kind: "created", reference: result.reference, dueAt: dueAt.toISOString() };
    },
  };
}
