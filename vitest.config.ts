import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // Same mapping as tsconfig.json's `paths` ("@/*" -> "./src/*"; the SDK from its source).
    alias: [
      { find: /^@\//, replacement: `${fileURLToPath(new URL("./src/", import.meta.url))}` },
      { find: /^@atrium\/sdk$/, replacement: fileURLToPath(new URL("./packages/sdk/src/index.ts", import.meta.url)) },
    ],
  },
  // tsconfig keeps JSX for Next.js to compile; tests that render a component need it compiled.
  oxc: { jsx: { runtime: "automatic" } },
  test: {
    environment: "node",
    // Each test file runs in its own process with its own database (tests/setup.ts).
    pool: "forks",
    // Vitest's default on a run is one worker fewer than the cores: one on CI's two. The files wait on
    // PostgreSQL most of the time, so two keep both cores busy.
    maxWorkers: 2,
    include: ["tests/**/*.test.ts"],
    exclude: ["e2e/**", "node_modules/**", ".next/**", ".data/**"],
    // One embedded PostgreSQL cluster and a migrated template database for the whole run.
    globalSetup: ["./tests/global-setup.ts"],
    setupFiles: ["./tests/setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
