/**
 * Vitest globalSetup: PostgreSQL for the whole run. Tests get the admin URL with
 * `inject("postgresAdminUrl")` (see tests/support/databases.ts) and each makes its own database.
 */
import type { TestProject } from "vitest/node";
import { provideAdminUrl } from "./postgres";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const postgres = await provideAdminUrl();
  project.provide("postgresAdminUrl", postgres.url);
  return () => postgres.stop();
}
