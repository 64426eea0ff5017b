import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { stdSerializers } from "pino";
import { anonymizeIp, isAcceptableRequestId, serializeError, truncate } from "../../server/logger";

describe("anonymizeIp", () => {
  it("keeps only the /24 of an IPv4 address", () => {
    expect(anonymizeIp("203.0.113.77")).toBe("203.0.113.0");
    expect(anonymizeIp("::ffff:198.51.100.9")).toBe("198.51.100.0");
  });

  it("keeps only the /48 of an IPv6 address", () => {
    expect(anonymizeIp("2001:db8:85a3:8d3:1319:8a2e:370:7348")).toBe("2001:db8:85a3::");
    expect(anonymizeIp("2001:db8::1")).toBe("2001:db8:0::");
    expect(anonymizeIp("::1")).toBe("0:0:0::");
  });

  it("never returns the full address of any IPv4 client", () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        const out = anonymizeIp(ip)!;
        return out.endsWith(".0") && out.split(".").slice(0, 3).join(".") === ip.split(".").slice(0, 3).join(".");
      }),
    );
  });

  it("returns nothing for what is not an address", () => {
    expect(anonymizeIp(undefined)).toBeUndefined();
    expect(anonymizeIp("not-an-ip")).toBeUndefined();
  });
});

describe("isAcceptableRequestId", () => {
  it("accepts UUIDs and similar tokens", () => {
    expect(isAcceptableRequestId("3b241101-e2bb-4255-8caf-4136c566a962")).toBe(true);
    expect(isAcceptableRequestId("Root=1-67891233-abcdef012345678912345678")).toBe(true);
  });

  it("refuses short, long, multi-valued or injected ids", () => {
    for (const bad of ["short", "a".repeat(129), "id with spaces", 'x"}{"admin":true', "line\nbreak", ["aaaaaaaa", "bbbbbbbb"], undefined]) {
      expect(isAcceptableRequestId(bad), String(bad)).toBe(false);
    }
  });
});

describe("truncate", () => {
  it("cuts long values and marks the cut", () => {
    expect(truncate("abcdef", 3)).toBe("abc…");
    expect(truncate("abc", 3)).toBe("abc");
  });
});

describe("serializeError", () => {
  const bodyError = () =>
    Object.assign(new SyntaxError('Unexpected token \'}\', ..."ain St",}" is not valid JSON'), {
      type: "entity.parse.failed",
      body: '{"email":"jo@example.com","street":"1 Main St",}',
      status: 400,
    });

  it("keeps a request body, and the message and stack that quote it, out of the log", () => {
    const line = JSON.stringify(serializeError(bodyError()));
    expect(line).not.toContain("jo@example.com");
    expect(line).not.toContain("Main St");
    expect(serializeError(bodyError())).toMatchObject({ bodyError: "entity.parse.failed", status: 400 });
  });

  it("does the same for an error pino has already serialized (as pino-http passes it)", () => {
    const once = stdSerializers.err(bodyError());
    expect(JSON.stringify(serializeError(once))).not.toContain("jo@example.com");
  });

  it("leaves other errors as pino writes them", () => {
    expect(serializeError(new TypeError("boom"))).toMatchObject({ type: "TypeError", message: "boom" });
    expect(serializeError("not an error")).toBe("not an error");
  });
});
