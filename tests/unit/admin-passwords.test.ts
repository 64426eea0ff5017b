/** Console passwords (server/admin/passwords.ts): scrypt hashes that say their own parameters. */
import { describe, expect, it } from "vitest";
import { hashPassword, passwordProblem, verifyPassword, SCRYPT_COST } from "../../server/admin/passwords";

describe("console passwords", () => {
  it("stores scrypt$N$r$p$salt$hash with a 16-byte salt and a 64-byte key, never the password", async () => {
    const hash = await hashPassword("correct horse battery");
    const [scheme, N, r, p, salt, key] = hash.split("$");
    expect(scheme).toBe("scrypt");
    expect([Number(N), Number(r), Number(p)]).toEqual([SCRYPT_COST.N, SCRYPT_COST.r, SCRYPT_COST.p]);
    expect(Buffer.from(salt!, "base64")).toHaveLength(16);
    expect(Buffer.from(key!, "base64")).toHaveLength(64);
    expect(hash).not.toContain("correct horse");
  });

  it("salts each hash, so one password hashes differently twice", async () => {
    expect(await hashPassword("same password!")).not.toBe(await hashPassword("same password!"));
  });

  it("accepts the right password and refuses a wrong one", async () => {
    const hash = await hashPassword("correct horse battery");
    await expect(verifyPassword("correct horse battery", hash)).resolves.toBe(true);
    await expect(verifyPassword("correct horse batterY", hash)).resolves.toBe(false);
  });

  it("checks a hash made with other parameters by the parameters it carries", async () => {
    const cheaper = await hashPassword("correct horse battery", { N: 2 ** 12, r: 8, p: 1 });
    expect(cheaper.startsWith("scrypt$4096$8$1$")).toBe(true);
    await expect(verifyPassword("correct horse battery", cheaper)).resolves.toBe(true);
  });

  it("refuses (after the same work) when there is no hash or the hash is malformed", async () => {
    await expect(verifyPassword("anything at all", undefined)).resolves.toBe(false);
    await expect(verifyPassword("anything at all", "plain-text-password")).resolves.toBe(false);
    await expect(verifyPassword("anything at all", "scrypt$3$8$1$AAAA$AAAA")).resolves.toBe(false);
  });

  it("does the scrypt work for an unknown user too (no timing oracle on names)", async () => {
    const hash = await hashPassword("correct horse battery");
    const time = async (stored: string | undefined) => {
      const start = performance.now();
      await verifyPassword("wrong password here", stored);
      return performance.now() - start;
    };
    await time(undefined); // the decoy is made once
    const known = await time(hash);
    const unknown = await time(undefined);
    // Both cost a full scrypt derivation: within a factor of three of each other.
    expect(unknown).toBeGreaterThan(known / 3);
  });

  it("refuses new passwords shorter than 12 characters", () => {
    expect(passwordProblem("short pass!")).toMatch(/at least 12/);
    expect(passwordProblem("twelve chars")).toBeUndefined();
    expect(passwordProblem("x".repeat(300))).toMatch(/at most/);
  });
});
