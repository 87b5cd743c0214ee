// A test file that mocks modules or changes the process's environment or globals would leak into
// the files that share its worker process (vitest.config.ts's "shared" project): such files must
// be listed in vitest.config.ts (ISOLATED_TEST_FILES), and every listed file must exist.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ISOLATED_TEST_FILES } from "../../vitest.config";

const PROCESS_WIDE = [/\bvi\.mock\(/, /\bvi\.hoisted\(/, /\bvi\.stub(Env|Global)\(/, /\bprocess\.env\.\w+\s*=[^=]/];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

describe("test files sharing a worker", () => {
  it("are those that change nothing process-wide; the others are listed as isolated", () => {
    const unlisted = testFiles("tests").filter(
      (file) =>
        !ISOLATED_TEST_FILES.includes(file) && PROCESS_WIDE.some((pattern) => pattern.test(readFileSync(file, "utf8"))),
    );
    expect(unlisted).toEqual([]);
    expect(ISOLATED_TEST_FILES.filter((file) => !existsSync(file))).toEqual([]);
  });
});
