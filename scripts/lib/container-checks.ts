/**
 * The container test's checks through the load balancer: every route, stored data really in
 * PostgreSQL, both replicas serving (a form from one accepted by the other), and the data still
 * there after `down` and `up`.
 */
import { run, sleep, waitFor, type LogFollower } from "./container-engine";
import { check, CheckFailure, HttpClient, routeChecks, runChecks, submitPrivacyRequest } from "./container-http";
import { countQuery, storedDataChecks, type StoredRecord } from "./container-stored-data";
import { print } from "./container-report";
import { APP_SERVICES, APP_STOP_TIMEOUT_S, composeLabel, composeRun, up, type AppService, type Running, type Stack } from "./container-stack";

async function countStored(dbContainer: string, record: StoredRecord): Promise<number> {
  // The database's own POSTGRES_USER and POSTGRES_DB, over its Unix socket; the value is a psql variable.
  const { stdout } = await run(
    "docker",
    ["exec", "-i", dbContainer, "sh", "-c", 'psql -X -q -t -A -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -v value="$1" -f -', "sh", record.value],
    { input: countQuery(record), timeoutMs: 30_000 },
  );
  return Number(stdout.trim());
}

export async function checkRoutes(lb: HttpClient): Promise<void> {
  const failed = await runChecks(routeChecks(lb), print);
  if (failed.length) throw new CheckFailure(`${failed.length} route check(s) failed`);
}

/** Submits each kind of stored data and finds it in the database; returns what to look for again later. */
export async function checkStoredData(lb: HttpClient, running: Running): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  for (const storedCheck of storedDataChecks) {
    const record = await storedCheck.submit(lb);
    const count = await countStored(running.db, record);
    check(count === 1, `${record.description}: ${count} rows in ${record.table}`);
    print(`  ok    ${storedCheck.name}: ${record.description} is in ${record.table}`);
    records.push(record);
  }
  return records;
}

/** Both replicas answered this test's requests, and a CSRF token issued by one was accepted by the other. */
export async function checkBothReplicas(lb: HttpClient, followers: Record<AppService, LogFollower>): Promise<void> {
  // Log lines reach `docker logs` a little later than the responses: wait until the count settles.
  let last = -1;
  await waitFor("the replicas' logs to settle", 15_000, async () => {
    const seen = APP_SERVICES.reduce((sum, service) => sum + followers[service].trackedIds.size, 0);
    const settled = seen === last && APP_SERVICES.every((service) => followers[service].trackedIds.size > 0);
    last = seen;
    await sleep(1_000);
    return settled ? true : undefined;
  }).catch(() => undefined);
  const served = APP_SERVICES.map((service) => `${service} ${followers[service].trackedIds.size}`).join(", ");
  print(`  requests of this test answered: ${served} (of ${lb.sentIds.length} sent)`);
  check(APP_SERVICES.every((service) => followers[service].trackedIds.size > 0), `not both replicas served: ${served}`);
  const replicaOf = (requestId: string) => APP_SERVICES.find((service) => followers[service].trackedIds.has(requestId));
  // The CSRF token comes from one request and is checked by another; on different replicas
  // that only works with the shared CSRF_SECRET. Which replica nginx picks depends on its
  // workers' round-robin turns, so each attempt puts one more request in between.
  for (let attempt = 1; ; attempt += 1) {
    const betweenRequests = async () => {
      for (let filler = 1; filler < attempt; filler += 1) await lb.request("/robots.txt");
    };
    const { status, submission } = await submitPrivacyRequest(lb, { betweenRequests });
    check(status === 201, `privacy request answered ${status}`);
    const [issuer, checker] = await waitFor("the replicas to log both requests of the submission", 15_000, async () => {
      const pair = [replicaOf(submission.sessionRequestId), replicaOf(submission.submitRequestId)] as const;
      return pair[0] && pair[1] ? pair : undefined;
    });
    if (issuer && checker && issuer !== checker) {
      print(`  a CSRF token issued by ${issuer} was accepted by ${checker}`);
      break;
    }
    if (attempt === 6) throw new CheckFailure("six privacy requests, and never were the token and the submission on different replicas");
  }
}

/** `compose down` (volumes kept) and `up`: every stored record is still there. Returns the new containers. */
export async function checkDataSurvivesDownUp(stack: Stack, lb: HttpClient, stored: StoredRecord[]): Promise<Running> {
  await composeRun(stack, ["down", "-t", String(APP_STOP_TIMEOUT_S)], { timeoutMs: 180_000 });
  const volumes = (await run("docker", ["volume", "ls", "-q", "--filter", `label=${composeLabel}`])).stdout.trim();
  check(volumes !== "", "the database volume is gone after down");
  const running = await up(stack, lb);
  for (const record of stored) {
    const count = await countStored(running.db, record);
    check(count === 1, `after down and up, ${record.description}: ${count} rows`);
    print(`  ok    ${record.description} is still in ${record.table}`);
  }
  const page = await lb.request("/zipcode");
  check(page.status === 200, `/zipcode answered ${page.status} after up`);
  return running;
}

/** The operations console answers on app1's published loopback port, and not through the balancer. */
export async function checkConsole(stack: Stack, lb: HttpClient): Promise<void> {
  const consoleClient = new HttpClient(`http://127.0.0.1:${stack.adminPort}`, `${lb.idPrefix}admin-`);
  const signIn = await waitFor("the console to answer", 30_000, async () => {
    const reply = await consoleClient.request("/sign-in").catch(() => undefined);
    return reply?.status === 200 ? reply : undefined;
  });
  check(/type="password"/.test(signIn.text), "the console's sign-in page has no password field");
  check(/frame-ancestors 'none'/.test(signIn.headers.get("content-security-policy") ?? ""), "the console's pages may be framed");
  print(`  ok    the console's sign-in page on 127.0.0.1:${stack.adminPort}`);
  const report = await consoleClient.request("/");
  check(report.status === 303 && (report.headers.get("location") ?? "").startsWith("/sign-in"), `the console's report without a session answered ${report.status}, not a redirect to sign-in`);
  print("  ok    without a session the console sends to sign-in");
  for (const path of ["/sign-in", "/admin", "/report.csv"]) {
    const reply = await lb.request(path);
    check(reply.status === 404, `${path} through the balancer answered ${reply.status}, expected 404`);
  }
  print("  ok    the console is not reachable through the balancer (404)");
}

/**
 * Prometheus' view (docs/metrics.md): each replica's /metrics through the balancer's metrics port
 * (what the compose stack's Prometheus scrapes), each with the requests it answered; the
 * balancer's own status there too; and /metrics never through the public port.
 */
export async function checkMetrics(stack: Stack, lb: HttpClient): Promise<void> {
  const metrics = new HttpClient(`http://127.0.0.1:${stack.metricsPort}`, `${lb.idPrefix}metrics-`);
  for (const replica of ["app1", "app2"]) {
    const reply = await waitFor(`${replica}'s metrics`, 30_000, async () => {
      const answer = await metrics.request(`/metrics/${replica}`).catch(() => undefined);
      return answer?.status === 200 ? answer : undefined;
    });
    check(/^http_requests_total\{[^}]*\} [1-9]/m.test(reply.text), `${replica}'s metrics count no request`);
    check(/^process_resident_memory_bytes \d/m.test(reply.text) && /^delivery_queue_due \d/m.test(reply.text), `${replica}'s metrics lack memory or the delivery queue`);
    print(`  ok    ${replica}'s /metrics through the balancer's metrics port (${reply.text.split("\n").filter((line) => line && !line.startsWith("#")).length} samples)`);
  }
  const status = await metrics.request("/nginx_status");
  check(status.status === 200 && /Active connections: \d+/.test(status.text), `the balancer's status answered ${status.status}`);
  print("  ok    the balancer's own status on its metrics port");
  const outside = await lb.request("/metrics");
  check(outside.status === 404, `/metrics through the public port answered ${outside.status}, expected 404`);
  print("  ok    /metrics is not on the public port (404)");
}
