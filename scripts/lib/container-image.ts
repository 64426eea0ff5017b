/**
 * The production image: building it (compose build), its size against its base, and the checks
 * on the image alone: it does not run as root, and it runs with a read-only root filesystem.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import getPort from "get-port";
import { projectRoot } from "../../tools/production-server";
import { imageSize, inspectContainer, run, waitHealthy } from "./container-engine";
import { check, HttpClient, submitPrivacyRequest } from "./container-http";
import { figures, megabytes, print, seconds } from "./container-report";
import { composeRun, project, testLabel, type Stack } from "./container-stack";

function dockerfileDefaultNodeImage(): string {
  const match = /^ARG NODE_IMAGE=(\S+)/m.exec(readFileSync(path.join(projectRoot, "Dockerfile"), "utf8"));
  return match?.[1] ?? "unknown";
}

/** The base image the build uses: NODE_IMAGE, or the Dockerfile's default. */
export const nodeImage = process.env.NODE_IMAGE || dockerfileDefaultNodeImage();

/** `compose build`; adds the build time to the figures. */
export async function buildImage(stack: Stack): Promise<void> {
  const started = Date.now();
  // 1.x leaves a failed build's intermediate container behind unless told otherwise.
  await composeRun(stack, ["build", ...(stack.compose.legacy ? ["--force-rm"] : [])], { timeoutMs: 1_200_000 });
  figures.push(["build", seconds(Date.now() - started)]);
}

/** Puts the image's size, its base's, and the difference first in the figures. */
export async function addImageFigures(image: string): Promise<void> {
  const [size, baseSize] = await Promise.all([imageSize(image), imageSize(nodeImage)]);
  figures.unshift(
    ["image size", size === undefined ? "unknown" : megabytes(size)],
    [`base ${nodeImage}`, baseSize === undefined ? "not in the local image store" : megabytes(baseSize)],
    ["added by the app (image − base)", size !== undefined && baseSize !== undefined ? megabytes(size - baseSize) : "unknown"],
  );
}

export async function imageChecks(stack: Stack, image: string): Promise<void> {
  const user = (await run("docker", ["image", "inspect", "--format", "{{.Config.User}}", image])).stdout.trim();
  const uid = (await run("docker", ["run", "--rm", "--label", testLabel, "--entrypoint", "id", image, "-u"])).stdout.trim();
  print(`  runs as user ${user || "(unset)"}: uid ${uid}`);
  check(uid !== "" && uid !== "0", `the image runs as uid ${uid}`);

  // Read-only root filesystem, the data directory a volume, no DATABASE_URL: the embedded store.
  const volume = `${project}-readonly-data`;
  const name = `${project}-readonly`;
  const port = await getPort({ host: "127.0.0.1" });
  await run("docker", ["volume", "create", "--label", testLabel, volume]);
  await run("docker", [
    "run", "-d", "--name", name, "--label", testLabel, "--read-only",
    "-v", `${volume}:/app/data`, "-p", `127.0.0.1:${port}:3000`,
    "-e", `CSRF_SECRET=${randomBytes(24).toString("hex")}`, image,
  ]);
  const id = (await inspectContainer(name)).id;
  const direct = new HttpClient(`http://127.0.0.1:${port}`, `${project}-ro-`);
  await waitHealthy(stack.engine, [id], 120_000);
  const health = await direct.request("/healthz");
  check(health.status === 200, `/healthz answered ${health.status}`);
  const { status, body } = await submitPrivacyRequest(direct);
  check(status === 201, `privacy request answered ${status}: ${JSON.stringify(body)}`);
  const write = await run("docker", ["exec", name, "node", "-e", "require('node:fs').writeFileSync('/app/probe', 'x')"], { allowFailure: true });
  check(write.code !== 0 && /EROFS|read-only/i.test(write.stderr), `writing to /app was not refused as read-only: ${write.stderr.trim() || "it succeeded"}`);
  const logs = (await run("docker", ["logs", name])).stdout;
  check(/"event":"database_ready","store":"embedded"/.test(logs), "no database_ready line for the embedded store");
  await run("docker", ["stop", "-t", "10", name]);
  const state = await inspectContainer(name);
  check(state.exitCode === 0, `the read-only container exited with ${state.exitCode}`);
  print(`  --read-only with ${volume} at /app/data: /healthz 200, privacy request stored in the embedded store (${String(body.reference)}), writes elsewhere refused, exit 0`);
}
