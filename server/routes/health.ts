/**
 * Probes for the load balancer and the orchestrator. /healthz: the process is alive.
 * /readyz: it should receive traffic; it turns 503 the moment shutdown begins so the balancer
 * stops routing here while in-flight requests finish.
 */
import { Router } from "express";
import type { Lifecycle } from "../lifecycle";
import { paths } from "../../shared/routes";

export function healthRouter(lifecycle: Lifecycle): Router {
  const router = Router();
  router.get(paths.healthz, (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.json({ status: "ok" });
  });
  router.get(paths.readyz, (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    if (lifecycle.isShuttingDown()) res.status(503).json({ status: "shutting_down" });
    else res.json({ status: "ready" });
  });
  return router;
}
