/**
 * The rolling restart under load: autocannon through the balancer while each app replica in turn
 * is stopped (it must drain and exit 0), started again and back in nginx's rotation. Not one
 * request may fail; nginx's own log says which replica answered and what it retried.
 */
import { runLoad, type LoadOptions, type LoadResult, type LoadRun } from "./bench-autocannon";
import { inspectContainer, isAppRequestLine, isNginxRequestLine, LogFollower, readLog, run, sleep, waitFor, waitHealthy } from "./container-engine";
import { check } from "./container-http";
import { figures, print, seconds } from "./container-report";
import { APP_SERVICES, APP_STOP_TIMEOUT_S, appFollower, type AppService, type Running, type Stack } from "./container-stack";

export const LOAD_CONNECTIONS = 20;

interface RestartOutcome {
  stopMs: number;
  exitCode: number;
  drainedRequests: number;
  backServingMs: number;
}

async function restartReplica(stack: Stack, service: AppService, id: string): Promise<RestartOutcome> {
  const stopAt = Date.now();
  await run("docker", ["stop", "-t", String(APP_STOP_TIMEOUT_S), id], { timeoutMs: (APP_STOP_TIMEOUT_S + 30) * 1000 });
  const stopMs = Date.now() - stopAt;
  const state = await inspectContainer(id);
  const draining = await readLog(id, stopAt);
  const events = new Set(draining.map((entry) => entry.event));
  check(state.exitCode === 0, `${service} exited with ${state.exitCode}`);
  check(events.has("shutdown_started"), `${service} logged no shutdown_started`);
  check(events.has("shutdown_complete"), `${service} logged no shutdown_complete`);
  check(!events.has("shutdown_forced"), `${service} had to force its shutdown`);

  const startAt = Date.now();
  await run("docker", ["start", id]);
  // Followed only once it runs: following a stopped container ends at once.
  const back = appFollower(id, startAt);
  try {
    await waitHealthy(stack.engine, [id], 120_000);
    // Healthy is not enough: the next replica may only stop once nginx sends this one traffic again.
    await waitFor(`nginx to send ${service} requests again`, 60_000, async () => (back.requestLines > 0 ? true : undefined));
  } finally {
    back.stop();
  }
  return { stopMs, exitCode: state.exitCode, drainedRequests: draining.filter(isAppRequestLine).length, backServingMs: Date.now() - startAt };
}

let activeLoad: LoadRun | undefined;

/** Stops the load if one is running (cleanup after a failure or a signal). */
export function stopActiveLoad(): void {
  activeLoad?.stop();
}

export async function rollingRestart(stack: Stack, running: Running): Promise<void> {
  const origin = `http://127.0.0.1:${stack.lbPort}`;
  const upstreamOf: Record<string, AppService> = { [`${stack.backendPrefix}.11:3000`]: "app1", [`${stack.backendPrefix}.12:3000`]: "app2" };
  const perReplica: Record<AppService, number> = { app1: 0, app2: 0 };
  let retried = 0;
  let balancer5xx = 0;
  const loadStart = Date.now();
  const lbLog = new LogFollower(running.lb, loadStart, {
    isRequestLine: isNginxRequestLine,
    onRequest(entry) {
      const upstreams = String(entry.upstream).split(",").map((value) => value.trim());
      if (upstreams.length > 1) retried += 1;
      const last = upstreamOf[upstreams.at(-1) ?? ""];
      if (last) perReplica[last] += 1;
      if (typeof entry.status === "number" && entry.status >= 500) balancer5xx += 1;
    },
  });
  // nginx closes a visitor's keep-alive connection after 1,000 requests (keepalive_requests) with
  // "Connection: close"; browsers honour it, autocannon does not: it writes its next request
  // into the closing connection and counts the reset as an error. So autocannon opens a new
  // connection itself before that limit (its reconnectRate option, which runLoad passes on).
  const loadOptions: LoadOptions & { reconnectRate: number } = { url: `${origin}/zipcode`, connections: LOAD_CONNECTIONS, duration: 900, timeout: 10, reconnectRate: 500 };
  const load = runLoad(loadOptions);
  activeLoad = load;
  const outcomes: Partial<Record<AppService, RestartOutcome>> = {};
  let result: LoadResult;
  try {
    await sleep(3_000);
    for (const service of APP_SERVICES) {
      const outcome = await restartReplica(stack, service, running.app[service]);
      outcomes[service] = outcome;
      print(
        `  ${service}: stopped in ${seconds(outcome.stopMs)} (exit ${outcome.exitCode}, shutdown_complete, ${outcome.drainedRequests} requests answered while draining); ` +
          `started and serving through the balancer again after ${seconds(outcome.backServingMs)}`,
      );
    }
    await sleep(3_000);
  } finally {
    load.stop();
    result = await load;
    activeLoad = undefined;
    await sleep(500); // nginx's last lines
    lbLog.stop();
  }
  const badStatuses = Object.entries(result.statusCodeStats).filter(([code]) => Number(code) < 200 || Number(code) >= 400);
  const badCount = badStatuses.reduce((sum, [, { count }]) => sum + count, 0);
  const loadSeconds = (Date.now() - loadStart) / 1000;
  figures.push(
    ["requests during the rolling restart", `${result.requests.total} in ${loadSeconds.toFixed(1)} s (${Math.round(result.requests.total / loadSeconds)}/s, ${LOAD_CONNECTIONS} connections)`],
    ["  failed (errors, timeouts, non-2xx/3xx)", `${result.errors} errors, ${result.timeouts} timeouts, ${badCount} bad statuses${badCount ? ` ${JSON.stringify(Object.fromEntries(badStatuses))}` : ""}`],
    ["  latency p50 / p99 / max", `${result.latency.p50} / ${result.latency.p99} / ${result.latency.max} ms`],
    ["  answered by app1 / app2 (nginx log)", `${perReplica.app1} / ${perReplica.app2}`],
    ["  retried by nginx on the other replica", String(retried)],
    ...APP_SERVICES.map((service): [string, string] => {
      const outcome = outcomes[service];
      return [`  ${service} stop → exit / back serving`, outcome ? `${seconds(outcome.stopMs)} → ${outcome.exitCode} / ${seconds(outcome.backServingMs)}` : "did not finish"];
    }),
  );
  check(result.errors === 0 && result.timeouts === 0, `${result.errors} request errors and ${result.timeouts} timeouts under load`);
  check(badCount === 0, `${badCount} responses with a failing status: ${JSON.stringify(Object.fromEntries(badStatuses))}`);
  check(balancer5xx === 0, `nginx logged ${balancer5xx} responses with status 5xx`);
  check(result.requests.total > 0, "no requests completed");
}
