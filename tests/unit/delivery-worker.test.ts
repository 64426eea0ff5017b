/**
 * The delivery worker's own small rules (server/delivery/worker.ts): which database errors mean
 * "ended to break a lock conflict, wrote nothing, run it again" when a batch of results is
 * recorded (the deadlock itself, with real PostgreSQL, is in tests/db/auction.test.ts).
 */
import { describe, expect, it } from "vitest";
import { isLockConflict } from "../../server/delivery/worker";

describe("isLockConflict", () => {
  it("is a deadlock (40P01) or a serialization failure (40001), nothing else", () => {
    expect(isLockConflict({ code: "40P01", message: "deadlock detected" })).toBe(true);
    expect(isLockConflict({ code: "40001" })).toBe(true);
    // A lost connection, a constraint, a timeout: not run again at once (the claim's lease decides).
    for (const error of [{ code: "57P01" }, { code: "23505" }, { code: "ECONNREFUSED" }, new Error("timeout"), null, undefined, "40P01"]) expect(isLockConflict(error)).toBe(false);
  });
});
