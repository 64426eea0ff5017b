/**
 * The operations console of a production server started by a test (tools/production-server.ts
 * with ADMIN_PORT=0): a user added with `npm run admin -- add-user`, and a signed-in session that
 * reads pages and posts forms with the page's CSRF token, as a browser would.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect } from "vitest";
import { projectRoot, type RunningServer } from "../../tools/production-server";

export interface ConsoleUser {
  name: string;
  password: string;
}

/**
 * `npm run admin -- add-user NAME --role ROLE` with the password piped on stdin (the built
 * command: run `npm run build` first), on PostgreSQL (a URL) or the embedded store ({ DATA_DIR }).
 */
export function addConsoleUser(store: string | { DATA_DIR: string }, user: ConsoleUser, role: "ops" | "analyst"): void {
  const { DATABASE_URL: _unused, ...inherited } = process.env;
  const location = typeof store === "string" ? { DATABASE_URL: store } : { DATA_DIR: store.DATA_DIR };
  const result = spawnSync(process.execPath, [path.join(projectRoot, "dist", "server", "admin.js"), "add-user", user.name, "--role", role], {
    cwd: projectRoot,
    env: { ...inherited, ...location, LOG_LEVEL: "warn" },
    input: `${user.password}\n`,
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
}

/** The Cookie header for the Set-Cookie lines of a response, merged into `jar`. */
export function keepCookies(jar: Map<string, string>, response: Response): string {
  for (const line of response.headers.getSetCookie()) {
    const [pair = ""] = line.split(";");
    const [name = "", ...value] = pair.split("=");
    jar.set(name, value.join("="));
  }
  return [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
}

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

export interface ConsoleSession {
  origin: string;
  get(pathAndQuery: string): Promise<Response>;
  /** POSTs a form with the CSRF token of the page at `from` (the buyers page by default). */
  post(pathAndQuery: string, fields: Record<string, string>, from?: string): Promise<Response>;
}

/** Signs `user` in to the server's console (its listener's port from the log). */
export async function signedInConsole(server: RunningServer, user: ConsoleUser): Promise<ConsoleSession> {
  const started = server.logs.find((line) => line.event === "admin_console_started");
  const origin = `http://127.0.0.1:${String(started?.port)}`;
  const jar = new Map<string, string>();
  const signIn = await fetch(`${origin}/sign-in`);
  let cookie = keepCookies(jar, signIn);
  const signedIn = await fetch(`${origin}/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ name: user.name, password: user.password, _csrf: csrfOf(await signIn.text()) }),
  });
  expect(signedIn.status).toBe(303);
  cookie = keepCookies(jar, signedIn);
  const get = (pathAndQuery: string) => fetch(`${origin}${pathAndQuery}`, { headers: { cookie } });
  return {
    origin,
    get,
    async post(pathAndQuery, fields, from = "/buyers") {
      const token = csrfOf(await (await get(from)).text());
      return fetch(`${origin}${pathAndQuery}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie }, body: new URLSearchParams({ ...fields, _csrf: token }) });
    },
  };
}
