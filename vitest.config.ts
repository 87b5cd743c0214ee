import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { ISOLATED_TEST_FILES } from "./tests/isolated-files";

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
    pool: "forks",
    // Vitest's default on a run is one worker fewer than the cores: one on CI's two. The files wait on
    // PostgreSQL most of the time, so two keep both cores busy.
    maxWorkers: 2,
    exclude: ["e2e/**", "node_modules/**", ".next/**", ".data/**"],
    // One embedded PostgreSQL cluster and a migrated template database for the whole run.
    globalSetup: ["./tests/global-setup.ts"],
    // Each test file gets its own database (tests/setup.ts), in either project.
    setupFiles: ["./tests/setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        // Most files share a worker process with the files before them: the app's modules (about 2 s
        // of loading per file) are loaded once per worker, not once per file.
        extends: true,
        test: { name: "shared", include: ["tests/**/*.test.ts"], exclude: ISOLATED_TEST_FILES, isolate: false },
      },
      {
        // Files that mock modules, set the environment or globals, or count process-wide metrics:
        // each in a process of its own.
        extends: true,
        test: { name: "isolated", include: ISOLATED_TEST_FILES, isolate: true },
      },
    ],
  },
});
