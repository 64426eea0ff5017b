/**
 * The server runs with the same memory settings everywhere it is started as in production:
 * `npm start`, the image's CMD and environment, and the harness the tests and the bench start it
 * with (tools/production-server.ts). The bench's memory run measured those settings (decision
 * 020); a copy that drifted would leave production on settings nobody measured.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot, SERVER_ENV, SERVER_NODE_FLAGS } from "../../tools/production-server";

const packageJson = JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8")) as { scripts: Record<string, string> };
const dockerfile = readFileSync(path.join(projectRoot, "Dockerfile"), "utf8");

describe("the server's process settings", () => {
  it("are the harness's flags and environment in npm start", () => {
    const start = packageJson.scripts.start!;
    expect(start).toContain(`node ${SERVER_NODE_FLAGS.join(" ")} dist/server/index.js`);
    for (const [name, value] of Object.entries(SERVER_ENV)) expect(start).toContain(`${name}=${value} `);
  });

  it("are the harness's flags and environment in the image", () => {
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(JSON.parse(cmd ?? "[]")).toEqual(["node", ...SERVER_NODE_FLAGS, "dist/server/index.js"]);
    const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    for (const [name, value] of Object.entries(SERVER_ENV)) expect(runtimeStage).toMatch(new RegExp(`^\\s+${name}=${value}\\b`, "m"));
  });

  it("include the settings the memory run measured", () => {
    expect(SERVER_NODE_FLAGS).toEqual(["--heap-growing-percent=25", "--max-semi-space-size=8"]);
    expect(SERVER_ENV).toEqual({ MALLOC_ARENA_MAX: "1" });
  });
});
