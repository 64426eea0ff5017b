/**
 * `npm run bench:settings`: what changing the business settings costs visitors (issue 33, "a
 * settings change costs visitors nothing measurable"). A report, not a test.
 *
 * One production server on PostgreSQL with the example's buyers imported, loaded with ad clicks as
 * phones send them (`/zipcode` and `/`, a new tid per request, gzip/br accepted). Rounds alternate
 * "steady" (no change) and "changing" (a buyer's cap and price changed 5 times a second through
 * the settings store from another connection, as ops in a console would, far more often than they
 * do: every poll of the server finds a new version and reloads); the order rotates per round so
 * drift spreads over both. Per mode: mean requests/s and the worst p99 over its rounds, and the
 * changing ÷ steady ratios. The server's reloads are counted from its log.
 */
import path from "node:path";
import { createTestDatabase, provideAdminUrl } from "../tools/postgres";
import { openDatabase } from "../server/db/database";
import { getBuyer, updateBuyer } from "../server/settings/store";
import { runLoad, type LoadResult } from "./lib/bench-autocannon";
import { PHONE_HEADERS } from "./lib/bench-options";
import { projectRoot, startProductionServer } from "../tools/production-server";

const ROUNDS = 4;
const ROUND_SECONDS = 5;
const CONNECTIONS = 50;
const CHANGES_PER_SECOND = 5;
const TARGETS = [
  { label: "ad click /zipcode, phone, new tid", path: "/zipcode?sid=a1&tid=[<id>]" },
  { label: "ad click /, phone, new tid", path: "/?zip=90210&sid=a1&tid=[<id>]" },
];
type Mode = "steady" | "changing";

const log = (message: string) => process.stderr.write(`[bench:settings] ${message}\n`);

async function main(): Promise<void> {
  const admin = await provideAdminUrl();
  const database = await createTestDatabase(admin.url);
  // The example's buyers (no lead is sent in this bench, so their stub need not run).
  const file = path.join(projectRoot, "deploy", "buyers.example.json");
  const server = await startProductionServer({ DATABASE_URL: database.url, BUYERS_FILE: file, CSRF_SECRET: "bench-settings-csrf-secret-of-32-characters-at-least", LOG_LEVEL: "info" }, { keepLogs: "all" });
  const db = await openDatabase({ DATABASE_URL: database.url, DATA_DIR: "unused" });
  const results: Record<Mode, Record<string, LoadResult[]>> = { steady: {}, changing: {} };
  let changes = 0;
  try {
    for (const target of TARGETS) await runLoad({ url: `${server.origin}${target.path}`, idReplacement: true, connections: CONNECTIONS, duration: 2, timeout: 10, headers: { ...PHONE_HEADERS } });
    for (let round = 0; round < ROUNDS; round += 1) {
      const modes: Mode[] = round % 2 === 0 ? ["steady", "changing"] : ["changing", "steady"];
      for (const mode of modes) {
        for (const target of TARGETS) {
          let changing = mode === "changing";
          const churn = (async () => {
            while (changing) {
              const stored = (await getBuyer(db.builder, "summit"))!;
              const { secret: _secret, previousSecret: _previous, previousSecretUntil: _until, ...buyer } = stored.entry;
              await updateBuyer(db.builder, { ...buyer, caps: { day: 200 + (changes % 50) }, price: 18 + (changes % 7) / 10 }, stored.revision, "bench");
              changes += 1;
              await new Promise((resolve) => setTimeout(resolve, 1_000 / CHANGES_PER_SECOND));
            }
          })();
          const result = await runLoad({ url: `${server.origin}${target.path}`, idReplacement: true, connections: CONNECTIONS, duration: ROUND_SECONDS, timeout: 10, headers: { ...PHONE_HEADERS } });
          changing = false;
          await churn;
          (results[mode][target.label] ??= []).push(result);
          log(`round ${round + 1} ${mode.padEnd(8)} ${target.label}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, errors ${result.errors}, non-2xx ${result.non2xx}`);
        }
      }
    }
  } finally {
    await db.close();
    await server.stop();
    await database.drop();
    await admin.stop();
  }
  const reloads = server.logs.filter((line) => line.event === "settings_reloaded").length;
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(`\nsettings changes vs none, ${ROUNDS} interleaved rounds x ${ROUND_SECONDS} s per target, ${CONNECTIONS} connections`);
  console.log(`changes written: ${changes} (${CHANGES_PER_SECOND}/s while changing); reloads by the server: ${reloads}`);
  console.log("target                                  steady req/s  changing req/s  ratio   steady p99  changing p99  errors");
  for (const target of TARGETS) {
    const steady = results.steady[target.label]!;
    const changing = results.changing[target.label]!;
    const rps = (runs: LoadResult[]) => mean(runs.map((run) => run.requests.average));
    const p99 = (runs: LoadResult[]) => Math.max(...runs.map((run) => run.latency.p99));
    const errors = [...steady, ...changing].reduce((sum, run) => sum + run.errors + run.non2xx, 0);
    console.log(
      `${target.label.padEnd(40)}${rps(steady).toFixed(0).padStart(12)}${rps(changing).toFixed(0).padStart(16)}${(rps(changing) / rps(steady)).toFixed(2).padStart(7)}×${`${p99(steady)} ms`.padStart(12)}${`${p99(changing)} ms`.padStart(14)}${String(errors).padStart(8)}`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
