import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The test files that run each in a process of its own (the "isolated" project): they mock modules, set
// the environment, globals or process handlers, or read process-wide metrics or traces, which the
// files sharing a worker process would see.
export const ISOLATED_TEST_FILES = [
  "tests/api/database-outage.test.ts",
  "tests/api/direct-routes.test.ts",
  "tests/api/doors.test.ts",
  "tests/api/idempotency-heartbeat.test.ts",
  "tests/api/malformed-requests.test.ts",
  "tests/api/metrics-disabled.test.ts",
  "tests/api/models.test.ts",
  "tests/api/observability.test.ts",
  "tests/api/openapi-input-rules.test.ts",
  "tests/api/pipeline.test.ts",
  "tests/api/rate-limit.test.ts",
  "tests/api/tracing.test.ts",
  "tests/audit/cli-webhooks.test.ts",
  "tests/audit/webhook-test-event.test.ts",
  "tests/audit/webhooks.test.ts",
  "tests/audit/write-paths.test.ts",
  "tests/builder/flow-http.test.ts",
  "tests/builder/templates.test.ts",
  "tests/cli/pool-size.test.ts",
  "tests/cli/secret-key-race.test.ts",
  "tests/cli/secret-key.test.ts",
  "tests/directory/saml.test.ts",
  "tests/directory/sso.test.ts",
  "tests/knowledge/delete-while-indexing.test.ts",
  "tests/mcp/hang-up.test.ts",
  "tests/perf/queries-per-request.test.ts",
  "tests/portal/chat-resume.test.ts",
  "tests/portal/embed.test.ts",
  "tests/portal/own-export-delivery.test.ts",
  "tests/portal/refund.test.ts",
  "tests/portal/sign-in-guessing.test.ts",
  "tests/portal/smtp.test.ts",
  "tests/provisioning/change-events.test.ts",
  "tests/retrieval/hybrid.test.ts",
  "tests/retrieval/ranking.test.ts",
  "tests/retrieval/rerank.test.ts",
  "tests/runtime/anthropic.test.ts",
  "tests/runtime/attachment-images.test.ts",
  "tests/runtime/billed-run.test.ts",
  "tests/runtime/conversation.test.ts",
  "tests/runtime/draft-preview.test.ts",
  "tests/runtime/eventsource.test.ts",
  "tests/runtime/fallbacks.test.ts",
  "tests/runtime/lost-runs.test.ts",
  "tests/runtime/mcp-integrations.test.ts",
  "tests/runtime/models.test.ts",
  "tests/runtime/openai-stream-node-reads.test.ts",
  "tests/runtime/org-providers.test.ts",
  "tests/runtime/plain-answers.test.ts",
  "tests/runtime/plan-models.test.ts",
  "tests/runtime/priced-runs.test.ts",
  "tests/runtime/provider.test.ts",
  "tests/runtime/reservations.test.ts",
  "tests/runtime/resume.test.ts",
  "tests/runtime/stream-coalescing.test.ts",
  "tests/runtime/stream-stores.test.ts",
  "tests/runtime/stream.test.ts",
  "tests/runtime/supervisor-tools.test.ts",
  "tests/runtime/test-run-leases.test.ts",
  "tests/runtime/tokens.test.ts",
  "tests/runtime/tool-calling.test.ts",
  "tests/security/console-throttle.test.ts",
  "tests/security/extraction.test.ts",
  "tests/security/integration-dns.test.ts",
  "tests/security/mfa.test.ts",
  "tests/security/private-address-switch.test.ts",
  "tests/security/public-origin.test.ts",
  "tests/usage/models.test.ts",
];

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
