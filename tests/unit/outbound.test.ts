/**
 * Where leads may go (issue 41, part 1): in production only https:// to public hosts, whatever
 * spelling an address uses, checked when saved (no DNS) and on every address a name resolves to
 * when connecting; OUTBOUND_ALLOW names the exceptions.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedLookup, NO_EXCEPTIONS, outboundUrlProblem, parseAllowList, refusedAddress, type OutboundAllowList, type OutboundPolicy, type Resolver } from "../../server/delivery/outbound";
import { send, setOutboundPolicy } from "../../server/delivery/http-send";
import { createLogger } from "../../server/logger";
import { loadConfig } from "../../server/config";

const PRODUCTION: OutboundPolicy = { enforce: true, allow: NO_EXCEPTIONS };

function allowList(text: string): OutboundAllowList {
  const parsed = parseAllowList(text);
  if ("problems" in parsed) throw new Error(parsed.problems.join("; "));
  return parsed.allow;
}

describe("outboundUrlProblem: what may be saved as a buyer's or source's address in production", () => {
  it.each([
    // The addresses the fault run saved with 201 before the fix.
    ["https://169.254.169.254/latest/meta-data/", /link-local/],
    ["http://127.0.0.1:5432/", /https:\/\//],
    ["http://localhost:6379/", /https:\/\//],
    ["http://[::1]:5432/", /https:\/\//],
    ["http://2130706433:5432/", /https:\/\//],
    ["https://10.0.0.5/leads", /private address \(RFC 1918\)/],
    ["https://192.168.1.1/", /private address \(RFC 1918\)/],
    ["https://metadata.google.internal/", /reserved for private networks \(\.internal\)/],
    // Over https, each spelling of an inside address is refused for what it is.
    ["https://127.0.0.1:5432/", /loopback/],
    ["https://2130706433/", /127\.0\.0\.1 is a loopback/],
    ["https://0177.0.0.1/", /127\.0\.0\.1 is a loopback/],
    ["https://0x7f.0.0.1/", /127\.0\.0\.1 is a loopback/],
    ["https://0x7f000001/", /loopback/],
    ["https://[::1]/", /loopback/],
    ["https://[::ffff:127.0.0.1]/", /loopback/],
    ["https://[::ffff:a9fe:a9fe]/", /link-local/],
    ["https://[64:ff9b::a00:5]/", /private address \(RFC 1918\)/],
    ["https://[fe80::1]/", /link-local/],
    ["https://[fd00:ec2::254]/", /unique-local/],
    ["https://100.64.0.1/", /carrier-grade NAT/],
    ["https://100.100.100.200/", /carrier-grade NAT/],
    ["https://224.0.0.1/", /multicast/],
    ["https://[ff02::1]/", /multicast/],
    ["https://0.0.0.0/", /unspecified/],
    ["https://[::]/", /unspecified/],
    ["https://255.255.255.255/", /broadcast/],
    ["https://localhost/", /\(\.localhost\)/],
    ["https://LOCALHOST./", /\(\.localhost\)/],
    ["https://api.localhost/", /\(\.localhost\)/],
    ["https://printer.local/", /\(\.local\)/],
    ["https://router.home.arpa/", /\(\.home\.arpa\)/],
    ["https://intranet/", /not a public host name/],
    ["https://{tid}.track.example/pb", /macros/],
    ["http://leads.example.com/post", /https:\/\//],
  ])("refuses %s", (address, reason) => {
    expect(outboundUrlProblem(address, PRODUCTION)).toMatch(reason);
  });

  it.each(["https://leads.example.com/post", "https://8.8.8.8/", "https://[2606:4700:4700::1111]/", "https://[64:ff9b::808:808]/", "https://track.example/pb?tid={tid}&p={payout}"])("accepts %s", (address) => {
    expect(outboundUrlProblem(address, PRODUCTION)).toBeUndefined();
  });

  it("holds only in production: development and tests reach anything", () => {
    expect(outboundUrlProblem("http://127.0.0.1:4100/leads", { enforce: false, allow: NO_EXCEPTIONS })).toBeUndefined();
  });

  it("lets OUTBOUND_ALLOW's names and ranges through, over plain http too", () => {
    const policy = { enforce: true, allow: allowList("buyer-stub, 127.0.0.0/8, ::1, partner.internal") };
    expect(outboundUrlProblem("http://buyer-stub:4100/leads", policy)).toBeUndefined();
    expect(outboundUrlProblem("http://127.0.0.1:4100/leads", policy)).toBeUndefined();
    expect(outboundUrlProblem("http://2130706433:4100/leads", policy)).toBeUndefined();
    expect(outboundUrlProblem("http://[::1]:4100/leads", policy)).toBeUndefined();
    expect(outboundUrlProblem("https://partner.internal/leads", policy)).toBeUndefined();
    // What is not named stays refused.
    expect(outboundUrlProblem("https://10.0.0.5/leads", policy)).toMatch(/private/);
    expect(outboundUrlProblem("https://other.internal/", policy)).toMatch(/reserved/);
  });
});

describe("OUTBOUND_ALLOW", () => {
  it("takes names, addresses and CIDR ranges, and names each bad entry", () => {
    const allow = allowList(" buyer-stub ,10.20.0.0/16, fd00::/8,[::1], 127.0.0.1");
    expect([...allow.names]).toEqual(["buyer-stub"]);
    expect(allow.ranges).toHaveLength(4);
    expect(parseAllowList("10.0.0.0/33, not a host, ok.example")).toEqual({ problems: ["10.0.0.0/33: not a CIDR range like 10.20.0.0/16", "not a host: not a host name, an address or a CIDR range"] });
  });

  it("is off by default, and a bad value stops the start naming the variable", () => {
    expect(loadConfig({}).OUTBOUND_ALLOW.entries).toEqual([]);
    expect(() => loadConfig({ OUTBOUND_ALLOW: "10.0.0.0/99" })).toThrow(/OUTBOUND_ALLOW: 10\.0\.0\.0\/99: not a CIDR range/);
  });
});

describe("refusedAddress: each address a name resolved to, when connecting", () => {
  it("passes public unicast only, unless an allowed range holds it", () => {
    expect(refusedAddress("93.184.216.34", NO_EXCEPTIONS)).toBeUndefined();
    expect(refusedAddress("10.1.2.3", NO_EXCEPTIONS)).toMatch(/private/);
    expect(refusedAddress("::ffff:10.1.2.3", NO_EXCEPTIONS)).toMatch(/private/);
    expect(refusedAddress("169.254.169.254", NO_EXCEPTIONS)).toMatch(/link-local/);
    expect(refusedAddress("10.1.2.3", allowList("10.0.0.0/8"))).toBeUndefined();
    expect(refusedAddress("::ffff:10.1.2.3", allowList("10.0.0.0/8"))).toBeUndefined();
  });
});

describe("the connection itself", () => {
  let server: http.Server;
  let port: number;
  let requests = 0;
  beforeAll(async () => {
    server = http.createServer((_request, response) => {
      requests += 1;
      response.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    setOutboundPolicy({ enforce: false, allow: NO_EXCEPTIONS }, createLogger({ NODE_ENV: "test", LOG_LEVEL: "silent" }));
    await new Promise((resolve) => server.close(resolve));
  });

  it("refuses a name that resolves inside the network, through the system's resolver (localhost is 127.0.0.1 in /etc/hosts)", async () => {
    const lookup = guardedLookup(PRODUCTION, "localhost")!;
    const result = await new Promise<{ error: NodeJS.ErrnoException | null }>((resolve) => lookup("localhost", { all: true }, (error) => resolve({ error })));
    expect(result.error?.code).toBe("EOUTBOUNDREFUSED");
    expect(result.error?.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
  });

  it("never connects when a public-looking name resolves to a private address, and logs the buyer, not the lead", async () => {
    // No DNS server answers on this machine: the resolver plays a public name pointing inside.
    const resolver: Resolver = (_hostname, _family, callback) => callback(null, [{ address: "127.0.0.1", family: 4 }]);
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ NODE_ENV: "test", LOG_LEVEL: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    setOutboundPolicy({ ...PRODUCTION, resolver }, logger);
    const before = requests;
    const result = await send(`https://leads.buyer.example:${port}/post`, { method: "POST", headers: {}, body: '{"email":"jo@example.com"}', party: { buyer: "acme" } }, 2_000);
    expect(result.outcome).toBe("network_error");
    expect(result.excerpt).toMatch(/^refused: leads\.buyer\.example resolves to 127\.0\.0\.1, a loopback address/);
    expect(requests).toBe(before);
    const warning = lines.find((line) => line.event === "outbound_refused");
    expect(warning).toMatchObject({ level: "warn", buyer: "acme", host: "leads.buyer.example" });
    expect(JSON.stringify(lines)).not.toContain("jo@example.com");
  });

  it("refuses an address literal before connecting, and reaches it once OUTBOUND_ALLOW names it", async () => {
    const logger = createLogger({ NODE_ENV: "test", LOG_LEVEL: "silent" });
    setOutboundPolicy(PRODUCTION, logger);
    const before = requests;
    const refused = await send(`http://2130706433:${port}/post`, { method: "GET", headers: {}, party: { source: "fb01" } }, 2_000);
    expect(refused.excerpt).toMatch(/^refused: /);
    expect(requests).toBe(before);
    setOutboundPolicy({ enforce: true, allow: allowList("127.0.0.1") }, logger);
    const reached = await send(`http://127.0.0.1:${port}/post`, { method: "GET", headers: {} }, 2_000);
    expect(reached.outcome).toBe("accepted");
    expect(requests).toBe(before + 1);
  });

  it.each([
    "https://169.254.169.254/latest/meta-data/",
    "http://127.0.0.1:5432/",
    "http://localhost:6379/",
    "http://[::1]:5432/",
    "http://2130706433:5432/",
    "https://10.0.0.5/leads",
    "https://192.168.1.1/",
    "https://metadata.google.internal/",
  ])("refuses %s when connecting too, for an address saved before the rule", async (address) => {
    const lines: Record<string, unknown>[] = [];
    setOutboundPolicy(PRODUCTION, createLogger({ NODE_ENV: "test", LOG_LEVEL: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }));
    const result = await send(address, { method: "POST", headers: {}, body: "{}", party: { buyer: "legacy" } }, 2_000);
    expect(result).toMatchObject({ outcome: "network_error", httpStatus: null });
    expect(result.excerpt).toMatch(/^refused: /);
    expect(lines).toEqual([expect.objectContaining({ event: "outbound_refused", buyer: "legacy" })]);
  });

  it("reaches a public-looking name that resolves to an allowed range", async () => {
    const resolver: Resolver = (_hostname, _family, callback) => callback(null, [{ address: "127.0.0.1", family: 4 }]);
    setOutboundPolicy({ enforce: true, allow: allowList("127.0.0.0/8"), resolver }, createLogger({ NODE_ENV: "test", LOG_LEVEL: "silent" }));
    // Plain http to a name is still refused when saved, so this one goes over https to a server that speaks http: the connection is made, TLS then fails.
    const result = await send(`https://leads.buyer.example:${port}/post`, { method: "GET", headers: {} }, 2_000);
    expect(result.excerpt ?? "").not.toMatch(/refused/);
  });
});
