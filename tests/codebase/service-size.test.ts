// docs/architecture.md: "A service file stays under 400 lines: past that it is split by operation
// into siblings named for what they do." This keeps the rule from drifting unnoticed.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

function linesOf(file: string): number {
  return readFileSync(file, "utf8").trimEnd().split("\n").length;
}

describe("service files", () => {
  it(`stay within ${MAX_LINES} lines`, () => {
    const over = sourceFiles("src/server/services")
      .filter((file) => linesOf(file) > MAX_LINES)
      .map((file) => `${file}: ${linesOf(file)} lines`);
    expect(over).toEqual([]);
  });
});
