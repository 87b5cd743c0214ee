#!/usr/bin/env node
// `npm test`: the Vitest suite (services and API in-process against a real PostgreSQL), then
// a production build and the Playwright suite (the console in Chromium). Ends with one
// plain "N passed, N failed" line for both. A missing Chromium is installed first when it can
// be (scripts/chromium.mjs), or the run stops at once with one line saying how to get it.
// It starts by printing the Node.js version it runs on, and stops on one older than 24.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { ensureChromium } from "./chromium.mjs";

// npm runs this on the `node` package's Node.js 24 (docs/operations.md, "Runtime"); an older
// `node` means the script was started without npm, and the suite would test another runtime.
console.log(`node ${process.version}`);
if (Number(process.versions.node.split(".")[0]) < 24) {
  console.error(`Node.js ${process.version} is older than the supported 24: run the suite with \`npm test\`.`);
  process.exit(1);
}

const chromium = ensureChromium();
if ("error" in chromium) {
  console.error(chromium.error);
  process.exit(1);
}

const OUT = ".test-results";
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });

function run(command, args, env = {}) {
  return spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } }).status ?? 1;
}

const vitestStatus = run("node_modules/.bin/vitest", [
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${OUT}/vitest.json`,
]);
// Always a fresh production build, so the browser tests never run against stale code.
const buildStatus = vitestStatus === 0 ? run("node_modules/.bin/next", ["build"], { NEXT_TELEMETRY_DISABLED: "1" }) : 1;
// The build leaves about 500 MB for the kernel to write back some 30 s later, just when the first
// browser tests run: the likeliest cause of the two CI runs where one page's first load there took
// over 5 s and then over 10 s (e2e/chat.spec.ts). Writing it out first keeps that off their clock.
if (buildStatus === 0) run("sync", []);
const e2eStatus =
  buildStatus === 0 ? run("node_modules/.bin/playwright", ["test"], { CHROMIUM_PATH: chromium.path }) : 1;

function read(file) {
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null;
}
const vitest = read(`${OUT}/vitest.json`);
const e2e = read(`${OUT}/e2e.json`);
const vitestPassed = vitest?.numPassedTests ?? 0;
const vitestFailed = vitest ? vitest.numFailedTests : 1;
const e2ePassed = e2e?.stats?.expected ?? 0;
const e2eFailed = e2e ? (e2e.stats.unexpected ?? 0) + (e2e.stats.flaky ?? 0) : 1;

console.log("");
console.log(`vitest: ${vitestPassed} passed, ${vitestFailed} failed`);
console.log(`e2e: ${e2ePassed} passed, ${e2eFailed} failed`);
console.log(`${vitestPassed + e2ePassed} passed, ${vitestFailed + e2eFailed} failed`);
process.exit(vitestStatus !== 0 || e2eStatus !== 0 || vitestFailed + e2eFailed > 0 ? 1 : 0);
