import { describe, expect, it } from "vitest";
import { createNonce } from "../../server/security";

describe("CSP nonces", () => {
  it("are 128 random bits each, never repeated, across refills of the pool", () => {
    // 256 nonces per pool: 1,000 cross three refills.
    const nonces = Array.from({ length: 1_000 }, () => createNonce());
    expect(new Set(nonces).size).toBe(nonces.length);
    for (const nonce of nonces) {
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      expect(Buffer.from(nonce, "base64")).toHaveLength(16);
    }
  });
});
