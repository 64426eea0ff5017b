/** The console's one-time messages (server/admin/flash.ts): signed, short-lived, read once. */
import type { Request, Response } from "express";
import { describe, expect, it } from "vitest";
import { createFlashStore } from "../../server/admin/flash";

/** Just enough of Express's request and response for cookies. */
function exchange(cookie?: string) {
  const set: string[] = [];
  const req = { headers: cookie ? { cookie } : {}, secure: false } as unknown as Request;
  const res = { append: (_name: string, value: string) => set.push(value) } as unknown as Response;
  return { req, res, set };
}
const cookieFrom = (line: string) => line.split(";")[0]!;

describe("console flash messages", () => {
  const store = createFlashStore(Buffer.from("flash-test-key-flash-test-key-123"));

  it("shows a message set by an action once, on the next page", () => {
    const action = exchange();
    store.set(action.req, action.res, { kind: "success", text: "Queued 1 failed delivery of LD-AAAA-AAAA again." });
    expect(action.set[0]).toMatch(/^qr_admin_flash=.+; Max-Age=60; Path=\/; HttpOnly; SameSite=Strict$/);
    const page = exchange(cookieFrom(action.set[0]!));
    expect(store.take(page.req, page.res)).toEqual({ kind: "success", text: "Queued 1 failed delivery of LD-AAAA-AAAA again." });
    // Read once: the page clears it.
    expect(page.set[0]).toMatch(/^qr_admin_flash=; Max-Age=0/);
  });

  it("ignores a message the console did not sign", () => {
    const action = exchange();
    store.set(action.req, action.res, { kind: "success", text: "genuine" });
    const [payload = "", signature = ""] = cookieFrom(action.set[0]!).slice("qr_admin_flash=".length).split(".");
    const forged = Buffer.from(JSON.stringify({ k: "success", t: "Your account was credited", e: Date.now() + 60_000 })).toString("base64url");
    expect(store.take(exchange(`qr_admin_flash=${forged}.${signature}`).req, exchange().res)).toBeUndefined();
    expect(store.take(exchange(`qr_admin_flash=${payload}.${signature.startsWith("A") ? "B" : "A"}${signature.slice(1)}`).req, exchange().res)).toBeUndefined();
    const otherKey = createFlashStore(Buffer.from("another-key-another-key-another-k"));
    expect(otherKey.take(exchange(cookieFrom(action.set[0]!)).req, exchange().res)).toBeUndefined();
  });
});
