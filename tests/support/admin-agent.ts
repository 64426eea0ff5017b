/**
 * What the console's HTTP tests share: a cookie jar that plays the browser between supertest
 * requests, the `_csrf` of a page's form, and a renderAdmin that keeps every view it rendered
 * (the tests read the view the server filled, not only the HTML).
 */
import request from "supertest";
import { expect } from "vitest";
import { parse as parseHtml } from "node-html-parser";
import type { AdminRole, AdminView, RenderAdmin } from "../../shared/admin-views";
import type { Database } from "../../server/db/database";
import { adminUserRepository } from "../../server/admin/users";
import { hashPassword } from "../../server/admin/passwords";

export type Agent = { cookies: Map<string, string> };

/** A tiny cookie jar: what a browser would send back. */
export function jar(): Agent {
  return { cookies: new Map() };
}

/** Keeps the cookies a response sets, and forgets those it clears. */
export function remember(agent: Agent, response: request.Response): void {
  const lines = (response.headers["set-cookie"] as unknown as string[] | undefined) ?? [];
  for (const line of lines) {
    const [pair = ""] = line.split(";");
    const index = pair.indexOf("=");
    const name = pair.slice(0, index);
    const value = pair.slice(index + 1);
    if (/max-age=0/i.test(line) || value === "") agent.cookies.delete(name);
    else agent.cookies.set(name, value);
  }
}

export const cookieHeader = (agent: Agent) => [...agent.cookies].map(([name, value]) => `${name}=${value}`).join("; ");

/** A form as the console's forms send it: a list is the same field repeated (checkbox groups). */
export type Form = Record<string, string | string[]>;
type App = Parameters<typeof request>[0];

/**
 * GET and urlencoded POST through an agent's cookie jar, against `app()` unless another app is
 * given, and a sign-in that returns the agent with the CSRF token of the pages it then sees.
 */
export function adminRequests(app: () => App) {
  async function get(agent: Agent, url: string, on: App = app()) {
    const response = await request(on).get(url).set("Cookie", cookieHeader(agent));
    remember(agent, response);
    return response;
  }
  async function post(agent: Agent, url: string, form: Form, on: App = app()) {
    const body = new URLSearchParams();
    for (const [key, value] of Object.entries(form)) for (const entry of Array.isArray(value) ? value : [value]) body.append(key, entry);
    const response = await request(on).post(url).set("Cookie", cookieHeader(agent)).type("form").send(body.toString());
    remember(agent, response);
    return response;
  }
  async function signedIn(user: { name: string; password: string }, on: App = app()): Promise<{ agent: Agent; csrf: string }> {
    const agent = jar();
    const page = await get(agent, "/sign-in", on);
    const response = await post(agent, "/sign-in", { name: user.name, password: user.password, _csrf: csrfOf(page.text) }, on);
    expect(response.status).toBe(303);
    const buyers = await get(agent, "/buyers", on);
    return { agent, csrf: csrfOf(buyers.text) };
  }
  return { get, post, signedIn };
}

/** The `_csrf` of the page's first form. */
export function csrfOf(html: string): string {
  const input = parseHtml(html).querySelector('input[name="_csrf"]');
  if (!input) throw new Error("no _csrf field on the page");
  return input.getAttribute("value") ?? "";
}

/** A renderAdmin that renders as `real` does and pushes each view into `views`. */
export function capturingRenderAdmin(real: () => Promise<RenderAdmin>, views: AdminView[]): () => Promise<RenderAdmin> {
  return async () => {
    const render = await real();
    return (view, options) => {
      views.push(view);
      return render(view, options);
    };
  };
}

/** Console users stored as `npm run admin -- add-user` stores them (a scrypt hash of the password). */
export async function addUsers(db: Database, users: ReadonlyArray<{ name: string; password: string; role: AdminRole }>): Promise<void> {
  const repository = adminUserRepository(db);
  for (const user of users) await repository.create({ name: user.name, role: user.role, passwordHash: await hashPassword(user.password) });
}
