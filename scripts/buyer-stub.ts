/**
 * `npm run buyer-stub`: plays the buyers and the traffic source of a buyers file on your machine,
 * so a lead can be followed from the form to a buyer (docs/lead-delivery.md, "Trying it locally"),
 * and the three example buyers of deploy/buyer-specs/ in their own terms (Acme, Bolt, Cobalt:
 * docs/buyer-specs.md, "Trying them"):
 *
 *   npm run buyer-stub                                         # port 4100, the example file's buyers
 *   BUYERS_FILE=deploy/buyers.example.json npm start           # in another terminal
 *
 * Environment: PORT (4100), HOST (127.0.0.1; 0.0.0.0 for a container stack), BUYERS_FILE (whose
 * buyers' ids and secrets it plays; default deploy/buyers.example.json), BUYER_SECRETS
 * ("id=secret,id=secret", instead of the file), BUYER_SECRET (one secret for any buyer id),
 * DELAY_MS (how long each answer takes, default 0). It prints one line per lead received.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadBuyersFile } from "../server/delivery/buyers";
import { SPEC_ENDPOINTS, startBuyerStub, type SpecEndpoint } from "../tools/buyer-stub";

const root = fileURLToPath(new URL("..", import.meta.url));

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function secretsFrom(env: NodeJS.ProcessEnv): Record<string, string> {
  if (env.BUYER_SECRETS) {
    const pairs = env.BUYER_SECRETS.split(",").map((pair) => pair.trim()).filter(Boolean);
    return Object.fromEntries(
      pairs.map((pair) => {
        const at = pair.indexOf("=");
        if (at <= 0) fail(`BUYER_SECRETS: "${pair}" is not id=secret`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
    );
  }
  if (env.BUYER_SECRET) return {};
  const file = env.BUYERS_FILE ?? path.join(root, "deploy", "buyers.example.json");
  try {
    return Object.fromEntries(loadBuyersFile(file).buyers.map((buyer) => [buyer.id, buyer.secret]));
  } catch (error) {
    fail((error as Error).message);
  }
}

function number(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) fail(`${name} must be a whole number, not ${value}`);
  return parsed;
}

const env = process.env;
const buyers = secretsFrom(env);
const delayMs = number(env.DELAY_MS, 0, "DELAY_MS");
const stub = await startBuyerStub({
  buyers,
  ...(env.BUYER_SECRET ? { anyBuyerSecret: env.BUYER_SECRET } : {}),
  port: number(env.PORT, 4100, "PORT"),
  host: env.HOST || "127.0.0.1",
  defaultResponse: { status: 200, body: {}, delayMs },
  // A long session must not grow without bound: /received shows the latest.
  maxRecorded: 1_000,
  log: (line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`),
  specDelayMs: delayMs,
});

const ids = Object.keys(buyers);
process.stdout.write(
  [
    `Buyer stub listening on ${stub.origin}`,
    ...(ids.length > 0 ? ids.map((id) => `  buyer ${id}: POST ${stub.url(id)}`) : [`  any buyer (BUYER_SECRET): POST ${stub.origin}/leads/<buyer id>`]),
    `  postbacks: GET ${stub.postbackUrl()}`,
    "  the example buyers of deploy/buyer-specs/ (docs/buyer-specs.md):",
    ...(Object.keys(SPEC_ENDPOINTS) as SpecEndpoint[]).map((endpoint) => `    ${endpoint}: POST ${stub.specUrl(endpoint)}`),
    `  what arrived: GET ${stub.origin}/received`,
    "",
  ].join("\n"),
);

const shutdown = () => {
  void stub.stop().then(() => process.exit(0));
};
process.once("SIGINT", shutdown);
process.once("SIGTERM", shutdown);
