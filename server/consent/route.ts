/**
 * GET /consent/:id?b=<buyer id>&s=<signature>: the consent certificate, for a buyer the lead was
 * delivered to (the link each delivery carries; server/consent/certificate.ts). A bad or missing
 * signature, an unknown id and a buyer the lead did not go to all get the same 404 page, so a
 * link never reveals whether an id exists. The page holds personal data: never cached or indexed.
 */
import express from "express";
import type { Request, Response } from "express";
import { errorPageHtml } from "../pages/error-page";
import { CERTIFICATE_PATH } from "./certificate";
import { certificatePageHtml } from "./page";
import type { ConsentCertificates } from "./service";

function privateAnswer(res: Response): void {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Robots-Tag", "noindex, nofollow");
  // The address carries the link's signature: no other site learns it from a Referer.
  res.setHeader("Referrer-Policy", "no-referrer");
}

export function consentCertificateRoute(certificates: ConsentCertificates): express.Router {
  const router = express.Router();
  router.get(`${CERTIFICATE_PATH}/:id`, async (req: Request, res: Response) => {
    const lookup = await certificates.open(req.params.id, req.query.b, req.query.s);
    privateAnswer(res);
    if (!lookup.found) {
      req.log.info({ event: "consent_certificate_refused", reason: lookup.reason }, "consent certificate refused");
      res.status(404).type("html").send(errorPageHtml(404, String(req.id)));
      return;
    }
    const { certificate, buyerId } = lookup;
    req.log.info({ event: "consent_certificate_viewed", buyerId, reference: certificate.leadReference }, "consent certificate viewed");
    res.status(200).type("html").send(certificatePageHtml(certificate, buyerId));
  });
  return router;
}
