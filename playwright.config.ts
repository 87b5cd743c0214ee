// End-to-end tests: Debian's Chromium driving a production build started with `npm start`
// on a fresh embedded database.
import { existsSync } from "node:fs";
import { defineConfig } from "@playwright/test";
// @ts-expect-error -- a plain .mjs script without type declarations
import { CANDIDATES } from "./scripts/chromium.mjs";

export const E2E_PORT = Number(process.env.E2E_PORT ?? 3210);
export const E2E_DATA_DIR = ".data-e2e";

export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  // A route's first visit on a fresh production server loads its modules from a cold disk; on CI's two
  // busy cores one such navigation once took over the default 5 s (e2e/chat.spec.ts).
  expect: { timeout: 10_000 },
  // Two browsers at once against the one server: each test works in its own organization, and on
  // two cores the whole run takes about two thirds of one worker's time. E2E_WORKERS=1: one by one.
  workers: Number(process.env.E2E_WORKERS ?? 2),
  reporter: [["list"], ["json", { outputFile: ".test-results/e2e.json" }]],
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    launchOptions: {
      // `npm test` sets CHROMIUM_PATH (scripts/chromium.mjs); a bare `npx playwright test` finds it the same way.
      executablePath: process.env.CHROMIUM_PATH ?? (CANDIDATES as string[]).find((path) => existsSync(path)),
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
    trace: "off",
  },
  webServer: {
    command: `rm -rf ${E2E_DATA_DIR} && npm start`,
    // The integrations spec's MCP server listens on 127.0.0.1, and its header values are sealed.
    env: {
      DATA_DIR: E2E_DATA_DIR,
      PORT: String(E2E_PORT),
      NEXT_TELEMETRY_DISABLED: "1",
      ALLOW_PRIVATE_INTEGRATION_URLS: "true",
      ATRIUM_SECRET_KEY: "e2e-secret-key-0123456789-abcdefghijklmnop",
      // Single sign-on's redirect URI is built from it (e2e/sso.spec.ts).
      PUBLIC_ORIGIN: `http://127.0.0.1:${E2E_PORT}`,
    },
    url: `http://127.0.0.1:${E2E_PORT}/api/health`,
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
  },
});
