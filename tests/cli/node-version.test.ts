// The supported runtime is Node.js 24 (docs/operations.md, "Runtime"): npm scripts run on the
// `node` package's binary in node_modules/.bin, whatever `node` the machine has. Both this
// test process and a `node` a script spawns by name must be that one.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const SUPPORTED_MAJOR = 24;

function major(version: string): number {
  return Number(version.replace(/^v/, "").split(".")[0]);
}

describe("the Node.js runtime of the test run", () => {
  it("is Node.js 24 in the test process", () => {
    expect(major(process.versions.node)).toBe(SUPPORTED_MAJOR);
  });

  it("is Node.js 24 for `node` on the PATH a script sees", () => {
    const printed = execFileSync("node", ["--version"], { encoding: "utf8" }).trim();
    expect(major(printed)).toBe(SUPPORTED_MAJOR);
  });
});
