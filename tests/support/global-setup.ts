/**
 * Vitest globalSetup of the projects that use a database (vitest.config.ts): PostgreSQL for the
 * run. Tests get the admin URL with `inject("postgresAdminUrl")` (see tests/support/databases.ts)
 * and each makes its own database.
 *
 * Vitest runs a project's globalSetup once per project, all in its own process; the projects share
 * one server: the first starts it, the last one's teardown stops it.
 */
import type { TestProject } from "vitest/node";
import { provideAdminUrl } from "../../tools/postgres";

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL URL whose user may CREATE DATABASE: TEST_DATABASE_URL or the throwaway cluster. */
    postgresAdminUrl: string;
  }
}

interface SharedPostgres {
  users: number;
  server: ReturnType<typeof provideAdminUrl>;
}

/** On globalThis: each project loads this file as a module of its own. */
const KEY = "__quoteSiteTestPostgres";
const holder = globalThis as typeof globalThis & { [KEY]?: SharedPostgres };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = (holder[KEY] ??= { users: 0, server: provideAdminUrl() });
  shared.users += 1;
  const release = () => {
    shared.users -= 1;
    if (shared.users > 0) return false;
    if (holder[KEY] === shared) delete holder[KEY];
    return true;
  };
  let postgres: Awaited<SharedPostgres["server"]>;
  try {
    postgres = await shared.server;
  } catch (error) {
    release();
    throw error;
  }
  project.provide("postgresAdminUrl", postgres.url);
  return async () => {
    if (release()) await postgres.stop();
  };
}
