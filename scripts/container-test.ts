/**
 * `npm run test:container`: builds the production image and the docker-compose stack for real,
 * and proves through the load balancer that the site works, that leads submitted through it are
 * delivered to a buyer (the compose file's buyer-stub service, issue 10), that a rolling restart
 * of the replicas under load loses no request, and that data survives `down` and `up` (issue 5;
 * docs/deployment.md). Then it checks the image itself: not root, read-only root filesystem.
 *
 * It uses the `docker` and compose clients with whatever DOCKER_HOST, NODE_IMAGE, NGINX_IMAGE and
 * POSTGRES_IMAGE the environment gives, under a compose project name of its own, on a free
 * loopback port and a backend subnet no other network uses. Everything it creates (containers,
 * networks, volumes, the images it built) is removed at the end, also when a step fails or the
 * run is interrupted. CONTAINER_TEST_KEEP_IMAGES=1 keeps the images (a faster next build).
 *
 * The parts, in scripts/lib/: container-stack (project, up, cleanup), container-image (build,
 * size, image checks), container-checks (routes, stored data, replicas, down/up),
 * container-delivery (the buyer stub, the buyers file, the delivery check),
 * container-rolling-restart (the load phase), container-engine / container-http (the clients).
 */
import { inspectContainer, killRunningCommands, type LogFollower } from "./lib/container-engine";
import { CheckFailure, HttpClient } from "./lib/container-http";
import { figures, print, printFigures, seconds, step } from "./lib/container-report";
import { APP_SERVICES, appFollower, createStack, project, removeStack, up, type AppService, type Stack } from "./lib/container-stack";
import { addImageFigures, buildImage, imageChecks, nodeImage } from "./lib/container-image";
import { checkBothReplicas, checkConsole, checkDataSurvivesDownUp, checkMetrics, checkRoutes, checkStoredData } from "./lib/container-checks";
import { LOAD_CONNECTIONS, rollingRestart, stopActiveLoad } from "./lib/container-rolling-restart";
import { checkDelivery, DELIVERY_LEADS, STUB_PROFILE } from "./lib/container-delivery";

const failures: string[] = [];
let cleanupStarted: Promise<string[]> | undefined;

/** Stops the load and removes everything this run created; returns what could not be removed. Runs once. */
function cleanup(stack: Stack | undefined): Promise<string[]> {
  cleanupStarted ??= (async () => {
    stopActiveLoad();
    return stack ? removeStack(stack) : [];
  })();
  return cleanupStarted;
}

async function main(): Promise<number> {
  const startedAt = Date.now();
  let stack: Stack | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    print(`\n${signal}: stopping and cleaning up`);
    killRunningCommands();
    void cleanup(stack).finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  // A bug in this script must not leave the stack running either.
  const onCrash = (error: unknown) => {
    print(`\nunexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    killRunningCommands();
    void cleanup(stack).finally(() => process.exit(1));
  };
  process.once("uncaughtException", onCrash);
  process.once("unhandledRejection", onCrash);

  try {
    const s = (stack = await createStack());
    print(`container test: project ${project}, ${s.engine.description}, ${s.compose.command} ${s.compose.baseArgs.join(" ")} ${s.compose.version}`.replace(/\s+/g, " "));
    print(
      `  images: NODE_IMAGE=${nodeImage} NGINX_IMAGE=${process.env.NGINX_IMAGE || "(compose default)"} POSTGRES_IMAGE=${process.env.POSTGRES_IMAGE || "(compose default)"}; ` +
        `balancer on 127.0.0.1:${s.lbPort}, buyer stub (profile ${STUB_PROFILE}) on 127.0.0.1:${s.delivery.stubPort}, backend ${s.backendPrefix}.0/24` +
        (s.engine.runsHealthChecksItself ? "; the engine schedules no health checks, so this test runs them" : ""),
    );
    const lb = new HttpClient(`http://127.0.0.1:${s.lbPort}`, `${project}-`);

    await step("build the image (compose build)", () => buildImage(s));
    const running = await step("start the stack (compose up) and wait until it is healthy", () => up(s, lb));
    const followers = Object.fromEntries(APP_SERVICES.map((service) => [service, appFollower(running.app[service], running.upAt, lb.idPrefix)])) as Record<AppService, LogFollower>;
    const image = (await inspectContainer(running.app.app1)).image;
    await addImageFigures(image);

    await step("every route through the balancer", () => checkRoutes(lb));
    await step("the operations console on app1's loopback port only", () => checkConsole(s, lb));
    await step("each replica's Prometheus metrics through the balancer's metrics port", () => checkMetrics(s, lb));
    const stored = await step("stored data through the balancer is in PostgreSQL", () => checkStoredData(lb, running));
    await step("both replicas served traffic; a form from one is accepted by the other", () => checkBothReplicas(lb, followers));
    await step(`${DELIVERY_LEADS} leads through the balancer reach the buyer stub, signed, once each`, () => checkDelivery(lb, s.delivery, running.db, followers));
    await step(`rolling restart under load (${LOAD_CONNECTIONS} connections through the balancer)`, () => rollingRestart(s, running));
    await step("compose down (volumes kept) and up: the stored data is still there", () => checkDataSurvivesDownUp(s, lb, stored));
    await step("the image: not root, read-only root filesystem", () => imageChecks(s, image));
  } catch (error) {
    // A failed check or command says what failed; only a bug in this script (a TypeError, …) needs its stack.
    const expected = error instanceof CheckFailure || (error instanceof Error && error.constructor === Error);
    failures.push(error instanceof Error ? (expected ? error.message : (error.stack ?? error.message)) : String(error));
    print(`✗ ${failures.at(-1)}`);
  } finally {
    const leftovers = await cleanup(stack);
    if (leftovers.length) failures.push(`left behind: ${leftovers.join(", ")}`);
  }
  figures.push(["test duration", seconds(Date.now() - startedAt)]);
  printFigures();
  print(failures.length ? `\ncontainer test FAILED:\n${failures.map((failure) => `  - ${failure}`).join("\n")}` : "\ncontainer test passed");
  return failures.length ? 1 : 0;
}

// Exit explicitly: kept-alive sockets to containers that are gone must not hold the process.
process.exit(await main());
