/**
 * Where the server may send a lead, a ping, a webhook or a postback (issue 41; docs/security.md
 * "Outbound addresses"). An address ops type into the console is a request the server will make
 * with a person's contact details in it: without a rule, `https://169.254.169.254/…` reads the
 * cloud's metadata service and `http://127.0.0.1:5432/` posts a lead into our own database port.
 *
 * In production every outbound address must be `https://` to a public host. It is checked twice:
 * - when saved or imported (`outboundUrlProblem`): the scheme, an address literal in any spelling
 *   (WHATWG URL parsing turns `2130706433`, `0177.0.0.1` and `0x7f.1` into `127.0.0.1`), and names
 *   reserved for private use, without DNS (imports and tests run offline);
 * - when connecting (`guardedLookup`, used by server/delivery/http-send.ts): every address the name
 *   resolves to, since a public name can resolve to 10.x or 169.254.x, or change after the check.
 *
 * OUTBOUND_ALLOW names the exceptions (a buyer stub on loopback, a partner on a private network):
 * host names, addresses and CIDR ranges. A named host or an address in an allowed range may also
 * be reached over plain http://, since it is inside a network the operator vouches for.
 */
import dns from "node:dns";
import net from "node:net";
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface OutboundAllowList {
  /** The entries as written, for the start-up log line. */
  readonly entries: readonly string[];
  /** Host names, lower case without a trailing dot. */
  readonly names: ReadonlySet<string>;
  readonly ranges: ReadonlyArray<readonly [Address, number]>;
}

/** Every address a name resolves to (dns.lookup with `all`, by default). */
export type Resolver = (hostname: string, family: number | undefined, callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, family, callback) => dns.lookup(hostname, { all: true, ...(family ? { family } : {}) }, callback);

export interface OutboundPolicy {
  /** Production: the rules hold. Elsewhere (development, tests) every address may be reached. */
  readonly enforce: boolean;
  readonly allow: OutboundAllowList;
  /** The system's resolver unless given: a test plays a name that resolves inside the network, as no DNS server answers here. */
  readonly resolver?: Resolver;
}

export const NO_EXCEPTIONS: OutboundAllowList = { entries: [], names: new Set(), ranges: [] };

/**
 * OUTBOUND_ALLOW's value: a comma list of host names (`buyer-stub`, `localhost`), addresses
 * (`127.0.0.1`, `::1`) and CIDR ranges (`10.20.0.0/16`). The problems name each bad entry.
 */
export function parseAllowList(text: string): { allow: OutboundAllowList } | { problems: string[] } {
  const entries = text.split(",").map((entry) => entry.trim()).filter(Boolean);
  const names = new Set<string>();
  const ranges: Array<readonly [Address, number]> = [];
  const problems: string[] = [];
  for (const entry of entries) {
    const bare = entry.replace(/^\[(.*)\]$/, "$1");
    if (entry.includes("/")) {
      try {
        ranges.push(ipaddr.parseCIDR(bare));
      } catch {
        problems.push(`${entry}: not a CIDR range like 10.20.0.0/16`);
      }
    } else if (net.isIP(bare)) {
      const address = ipaddr.parse(bare);
      ranges.push([address, address.kind() === "ipv4" ? 32 : 128]);
    } else if (/^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i.test(entry)) {
      names.add(normalizeHost(entry));
    } else {
      problems.push(`${entry}: not a host name, an address or a CIDR range`);
    }
  }
  return problems.length > 0 ? { problems } : { allow: { entries, names, ranges } };
}

/** The policy for a process: enforced in production only, with OUTBOUND_ALLOW's exceptions. */
export function outboundPolicy(config: { NODE_ENV: string; OUTBOUND_ALLOW?: OutboundAllowList }): OutboundPolicy {
  return { enforce: config.NODE_ENV === "production", allow: config.OUTBOUND_ALLOW ?? NO_EXCEPTIONS };
}

const normalizeHost = (host: string) => host.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();

/** Why each special-purpose range is no place for a lead (ipaddr.js's range names). */
const RANGE_REASONS: Record<string, string> = {
  unspecified: "the unspecified address",
  broadcast: "the broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address (where cloud metadata services answer)",
  loopback: "a loopback address (this machine)",
  carrierGradeNat: "a carrier-grade NAT address (100.64.0.0/10)",
  private: "a private address (RFC 1918)",
  uniqueLocal: "a private address (unique-local IPv6)",
  reserved: "a reserved address",
};

/**
 * Why the server must not connect to this IP address (undefined: it may). Only ordinary public
 * unicast passes; an IPv4-mapped or NAT64 (64:ff9b::/96) address is judged by the IPv4 address
 * inside it; OUTBOUND_ALLOW's ranges pass whatever they hold.
 */
export function refusedAddress(ip: string, allow: OutboundAllowList): string | undefined {
  let address: Address;
  try {
    address = ipaddr.parse(normalizeHost(ip));
  } catch {
    return "not an IP address";
  }
  if (address.kind() === "ipv6") {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) address = v6.toIPv4Address();
    else if (v6.range() === "rfc6052") address = new ipaddr.IPv4([v6.parts[6]! >> 8, v6.parts[6]! & 0xff, v6.parts[7]! >> 8, v6.parts[7]! & 0xff]);
  }
  if (inAllowedRange(address, allow)) return undefined;
  const range = address.range();
  if (range === "unicast") return undefined;
  return RANGE_REASONS[range] ?? `a special-purpose address (${range})`;
}

/** Names reserved for private networks (RFC 6761, RFC 6762, RFC 8375, ICANN's .internal). */
const PRIVATE_SUFFIXES = ["localhost", "local", "internal", "home.arpa"];

function privateName(host: string): string | undefined {
  const suffix = PRIVATE_SUFFIXES.find((name) => host === name || host.endsWith(`.${name}`));
  if (suffix) return `${host} is a name reserved for private networks (.${suffix})`;
  if (!host.includes(".")) return `${host} is not a public host name (it has no domain)`;
  return undefined;
}

const HINT = "only public hosts may receive leads in production (OUTBOUND_ALLOW names exceptions)";

/**
 * Why this address may not be saved as an outbound address under the policy (undefined: it
 * may). No DNS: what a name resolves to is checked again on every connection.
 */
export function outboundUrlProblem(address: string, policy: OutboundPolicy): string | undefined {
  if (!policy.enforce) return undefined;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return "not a valid URL";
  }
  // A {macro} in the host would let a click's tid choose where the server connects.
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*[{}]/i.test(address)) return "keep {macros} out of the host name: they may go in the path or the query";
  const host = normalizeHost(url.hostname);
  const literal = net.isIP(host) !== 0;
  const vouched = policy.allow.names.has(host) || (literal && isAllowedRange(host, policy.allow));
  if (url.protocol !== "https:" && !vouched) return "use an https:// address: in production leads, pings and postbacks go out over TLS only";
  if (policy.allow.names.has(host)) return undefined;
  if (literal) {
    const reason = refusedAddress(host, policy.allow);
    return reason === undefined ? undefined : `${host} is ${reason}: ${HINT}`;
  }
  const named = privateName(host);
  return named === undefined ? undefined : `${named}: ${HINT}`;
}

function isAllowedRange(ip: string, allow: OutboundAllowList): boolean {
  return inAllowedRange(ipaddr.process(ip), allow);
}

function inAllowedRange(address: Address, allow: OutboundAllowList): boolean {
  return allow.ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
}

/** A connection the policy refused: the attempt's outcome, and a warning naming the buyer or source. */
export class OutboundRefusedError extends Error {
  readonly code = "EOUTBOUNDREFUSED";
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`refused: ${reason}`);
    this.name = "OutboundRefusedError";
  }
}

/**
 * dns.lookup for http.request that refuses the connection when any address the name resolves to
 * is refused (all of them, so an attacker's name cannot pass one public address first and a
 * private one on the retry). Node calls it for every new connection, never for a reused one.
 */
export function guardedLookup(policy: OutboundPolicy, host: string): net.LookupFunction | undefined {
  if (!policy.enforce || policy.allow.names.has(normalizeHost(host))) return undefined;
  const resolve = policy.resolver ?? systemResolver;
  return (hostname, options, callback) => {
    resolve(hostname, typeof options.family === "number" ? options.family : undefined, (error, addresses) => {
      if (error) return callback(error, "", 0);
      for (const { address } of addresses) {
        const reason = refusedAddress(address, policy.allow);
        if (reason !== undefined) return callback(new OutboundRefusedError(hostname, `${hostname} resolves to ${address}, ${reason}: ${HINT}`), "", 0);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
      return callback(null, first.address, first.family);
    });
  };
}
