// `npm run screenshots`: the console tour (tour.spec.ts) against the same production server the
// end-to-end suite starts, kept out of `npm test` so the suite stays quick.
import { defineConfig } from "@playwright/test";
import base from "../../playwright.config";

// The server starts from the repository's root, as `npm start` expects, not from this folder.
const root = new URL("../..", import.meta.url).pathname;
const server = base.webServer;

export default defineConfig({
  ...base,
  testDir: ".",
  timeout: 900_000,
  reporter: [["list"]],
  outputDir: "../../.screens/tour-results",
  // A state that cannot be reached is noted within seconds, and the tour goes on.
  use: { ...base.use, actionTimeout: 10_000 },
  expect: { timeout: 10_000 },
  webServer: server && !Array.isArray(server) ? { ...server, cwd: root } : server,
});
