import { defineConfig } from "vitest/config";

/**
 * PostgreSQL for the run (TEST_DATABASE_URL, or a throwaway cluster): only the projects whose
 * tests use a database start it, so `vitest run --project unit` needs none. The projects that
 * do share one server (tests/support/global-setup.ts).
 */
const postgres = ["./tests/support/global-setup.ts"];

export default defineConfig({
  test: {
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: browser suites are heavy, so files run two at a time at most (over all projects).
    maxWorkers: 2,
    reporters: ["default", "./tests/support/summary-reporter.ts"],
    // `extends: true`: each project inherits the settings above and adds its files (and PostgreSQL).
    projects: [
      // Pure functions: no database, no server, no browser.
      { extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.ts"] } },
      // The stores themselves, embedded and PostgreSQL, and the ops commands over them.
      { extends: true, test: { name: "db", include: ["tests/db/**/*.test.ts"], globalSetup: postgres } },
      // supertest against the app in this process (tests/http/leads.test.ts runs on both stores).
      { extends: true, test: { name: "http", include: ["tests/http/**/*.test.ts"], globalSetup: postgres } },
      // The built production server as a child process: signals, restarts (no browser).
      { extends: true, test: { name: "process", include: ["tests/process/**/*.test.ts"], globalSetup: postgres } },
      // Playwright driving Chromium against the production server.
      { extends: true, test: { name: "e2e", include: ["tests/e2e/**/*.test.ts"], globalSetup: postgres } },
    ],
  },
});
