import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ["./tests/support/global-setup.ts"],
    // Two cores: browser suites are heavy, so files run two at a time at most.
    maxWorkers: 2,
    reporters: ["default", "./tests/support/summary-reporter.ts"],
  },
});
