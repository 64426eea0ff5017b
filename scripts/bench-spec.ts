/**
 * The buyer-spec engine's speed (server/delivery/spec/; issue 43: rendering a buyer's request costs
 * at most 50 µs per delivery with the three example specs and 100 buyers). A figure to report,
 * not a timed test:
 *
 *   npm run bench:spec
 *
 * Each render is the whole of it: the exact request and its masked copy. Measured for each
 * example spec alone, then for 100 buyers compiled from them (each its own compiled spec and
 * credentials), one delivery each in turn; and, as the reference in the same run, today's
 * quoteridge delivery (the payload built, serialised and signed, server/delivery/payload.ts).
 * Reading each buyer's answer is timed too. Prints the median of several rounds.
 */
import { compileSpec, parseSpec, type CompiledHttpSpec, type RenderInput, type RequestSpecInput, type Stage } from "../server/delivery/spec";
import { deliveryPayload } from "../server/delivery/payload";
import { signBody } from "../server/delivery/signature";
import type { LeadRecord } from "../server/db/leads";
import { ACME_POST, BOLT_POST, COBALT_PING, COBALT_POST, EXAMPLE_CREDENTIALS, EXAMPLE_URLS, exampleInput, exampleLead } from "../tools/buyer-spec-examples";

const BUYERS = 100;
const ROUNDS = 15;
const PER_ROUND = 5_000;
const TARGET_US = 50;

function compiled(raw: RequestSpecInput, stage: Stage): CompiledHttpSpec {
  const parsed = parseSpec(raw, stage);
  if (!parsed.ok) throw new Error(`example spec refused: ${JSON.stringify(parsed.problems)}`);
  const spec = compileSpec(parsed.spec);
  if (spec.format === "quoteridge") throw new Error("expected an HTTP spec");
  return spec;
}

interface Example {
  name: string;
  raw: RequestSpecInput;
  stage: Stage;
  url: string;
  credentials: Record<string, string>;
  answer: { status: number; body: string };
}

const EXAMPLES: Example[] = [
  { name: "Acme (form, XML answer)", raw: ACME_POST, stage: "post", url: EXAMPLE_URLS.acme, credentials: EXAMPLE_CREDENTIALS.acme, answer: { status: 200, body: "<response><status>success</status><lead_id>AC-1001</lead_id><price>14.25</price></response>" } },
  { name: "Bolt (JSON, bearer)", raw: BOLT_POST, stage: "post", url: EXAMPLE_URLS.bolt, credentials: EXAMPLE_CREDENTIALS.bolt, answer: { status: 201, body: '{ "result": { "accepted": true, "id": "B-77", "payout": "11.00" } }' } },
  { name: "Cobalt ping (JSON)", raw: COBALT_PING, stage: "ping", url: EXAMPLE_URLS.cobaltPing, credentials: EXAMPLE_CREDENTIALS.cobalt, answer: { status: 200, body: '{ "status": "bid", "bid_id": "CP-9", "amount": 9.75 }' } },
  { name: "Cobalt post (JSON)", raw: COBALT_POST, stage: "post", url: EXAMPLE_URLS.cobaltPost, credentials: EXAMPLE_CREDENTIALS.cobalt, answer: { status: 200, body: '{ "status": "sold" }' } },
];

const input: RenderInput = exampleInput({ auction: { bidId: "CP-9", saleType: "exclusive" }, pingId: "p_1", now: new Date() });

/** Median µs per call of `run` (called `count` times per round). */
function measure(run: (index: number) => void, count = PER_ROUND): { median: number; best: number; worst: number } {
  for (let warm = 0; warm < 2_000; warm += 1) run(warm);
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const start = process.hrtime.bigint();
    for (let index = 0; index < count; index += 1) run(index);
    rounds.push(Number(process.hrtime.bigint() - start) / 1_000 / count);
  }
  rounds.sort((a, b) => a - b);
  return { median: rounds[Math.floor(rounds.length / 2)]!, best: rounds[0]!, worst: rounds.at(-1)! };
}

let sink = 0;
const keep = (text: string | null) => {
  sink += text?.length ?? 0;
};

// The reference: today's quoteridge delivery, as the worker builds it (payload, JSON, signature).
const record = { ...exampleLead(), timeZone: "America/Los_Angeles", gpc: false, duplicateOf: null, licenseStatus: "active", incidents: "one" } as unknown as LeadRecord;
const secret = ["s".repeat(32)];
const reference = measure(() => {
  const body = JSON.stringify(deliveryPayload(record, { sale: true, price: 12, certificateUrl: null, timeZone: record.timeZone }));
  keep(body);
  keep(signBody(secret, body));
});

console.log(`buyer specs: render = the exact request and its masked copy; ${ROUNDS} rounds, median (best–worst) µs per call`);
console.log(`  reference, today's quoteridge delivery (payload + JSON + signature): ${reference.median.toFixed(2)} µs`);
const show = (label: string, figures: { median: number; best: number; worst: number }) =>
  console.log(`  ${label.padEnd(44)} ${figures.median.toFixed(2).padStart(6)} µs (${figures.best.toFixed(2)}–${figures.worst.toFixed(2)}), ×${(figures.median / reference.median).toFixed(2)} the reference`);

let worstRender = 0;
for (const example of EXAMPLES) {
  const spec = compiled(example.raw, example.stage);
  const target = { url: example.url, credentials: example.credentials };
  const figures = measure(() => {
    const result = spec.render(input, target);
    if (!result.ok) throw new Error(`${example.name}: not rendered (${result.missing})`);
    keep(result.request.body);
    keep(result.masked.body);
  });
  worstRender = Math.max(worstRender, figures.median);
  show(`render ${example.name}`, figures);
}

// 100 buyers, each compiled from one of the examples with its own credentials, as the worker holds them.
const compileStart = process.hrtime.bigint();
const buyers = Array.from({ length: BUYERS }, (_, index) => {
  const example = EXAMPLES[index % EXAMPLES.length]!;
  const credentials = Object.fromEntries(Object.keys(example.credentials).map((key) => [key, `${key}-buyer-${index}`]));
  return { spec: compiled(example.raw, example.stage), target: { url: `${example.url}?buyer=${index}`, credentials } };
});
const compileUs = Number(process.hrtime.bigint() - compileStart) / 1_000 / BUYERS;
const hundred = measure((index) => {
  const buyer = buyers[index % BUYERS]!;
  const result = buyer.spec.render(input, buyer.target);
  if (!result.ok) throw new Error("not rendered");
  keep(result.request.body);
  keep(result.masked.body);
});
worstRender = Math.max(worstRender, hundred.median);
show(`render, ${BUYERS} buyers in turn (one delivery each)`, hundred);
console.log(`  parse + compile, per buyer (once per settings change): ${compileUs.toFixed(1)} µs`);

for (const example of EXAMPLES) {
  const spec = compiled(example.raw, example.stage);
  show(`read answer ${example.name}`, measure(() => keep(spec.readAnswer(example.answer).outcome)));
}

console.log(`  target ≤ ${TARGET_US} µs per delivery: ${worstRender <= TARGET_US ? "met" : "NOT met"} (slowest median ${worstRender.toFixed(2)} µs)${sink > 0 ? "" : " (nothing rendered?)"}`);
