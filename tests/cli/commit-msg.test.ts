// The repository's commit-msg hook (.githooks/commit-msg, installed by `npm install`) refuses a
// subject over 72 characters and lets a shorter one through, whatever the body's lines.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

function hook(message: string) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "commit-msg-")), "COMMIT_EDITMSG");
  writeFileSync(file, message);
  return spawnSync(".githooks/commit-msg", [file], { encoding: "utf8" });
}

describe("the commit-msg hook", () => {
  it("refuses a 73-character subject and says how long it is", () => {
    const result = hook(`${"x".repeat(73)}\n\nBody.\n`);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("73 characters");
  });

  it("accepts a 72-character subject with a longer body line", () => {
    expect(hook(`${"x".repeat(72)}\n\n${"y".repeat(200)}\n`).status).toBe(0);
  });
});
