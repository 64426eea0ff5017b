import type { Request } from "express";

/** The Global Privacy Control signal (Sec-GPC: 1), an opt-out of sale/sharing for this browser. */
export function hasGpc(req: Request): boolean {
  return req.get("sec-gpc")?.trim() === "1";
}
