import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { pino, stdSerializers } from "pino";
import { anonymizeIp, bufferedDestination, isAcceptableRequestId, serializeError, truncate } from "../../server/logger";

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

describe("bufferedDestination (stdout's buffer, kept as bytes)", () => {
  /**
   * What reaches a file standing in for stdout when `log` runs in one synchronous loop (the first
   * write is still in flight while the rest arrive), once `bytes` have arrived (or 10 s passed).
   */
  async function written(maxBytes: number, bytes: number, log: (logger: ReturnType<typeof pino>) => void): Promise<string> {
    const dir = mkdtempSync(path.join(os.tmpdir(), "buffered-destination-"));
    const file = path.join(dir, "out.log");
    const fd = openSync(file, "w");
    try {
      log(pino({ base: undefined, timestamp: false }, bufferedDestination(fd, maxBytes)));
      const deadline = Date.now() + 10_000;
      while (statSync(file).size < bytes && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      // A little longer: anything beyond what was expected would show up too.
      await new Promise((resolve) => setTimeout(resolve, 50));
      return readFileSync(file, "utf8");
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** One log line's bytes: every line of a test has the same length. */
  const lineBytes = (fields: object) => Buffer.byteLength(`${JSON.stringify({ level: 30, ...fields, msg: "line" })}\n`);

  it("writes every line whole and in order, multi-byte text included, when lines pile up behind a write", async () => {
    const city = "Zürich — 東京 — São Paulo";
    const count = 5_000;
    const text = await written(8 * 1024 * 1024, count * lineBytes({ n: "0000", city }), (logger) => {
      for (let index = 0; index < count; index += 1) logger.info({ n: String(index).padStart(4, "0"), city }, "line");
    });
    const lines = text.trimEnd().split("\n").map((line) => JSON.parse(line) as { n: string; city: string });
    expect(lines.map((line) => Number(line.n))).toEqual(Array.from({ length: count }, (_, index) => index));
    expect(lines.every((line) => line.city === city)).toBe(true);
  });

  it("counts the buffer in bytes: while stdout is busy it takes whole lines up to the limit and drops the rest", async () => {
    const maxBytes = 65_536;
    // Three bytes a character in UTF-8: counted in characters, the buffer would take three times as many lines.
    const text = "東".repeat(100);
    const size = lineBytes({ n: "0000", text });
    const fits = Math.floor(maxBytes / size);
    const out = await written(maxBytes, fits * size, (logger) => {
      for (let index = 0; index < 2_000; index += 1) logger.info({ n: String(index).padStart(4, "0"), text }, "line");
    });
    expect(Buffer.byteLength(out)).toBe(fits * size);
    const lines = out.trimEnd().split("\n").map((line) => JSON.parse(line) as { n: string });
    expect(lines.map((line) => Number(line.n))).toEqual(Array.from({ length: fits }, (_, index) => index));
  });
});
