// The console's pages run on the React that Next.js bundles for the App Router
// (next/dist/compiled/react), not on the `react` package that TypeScript checks against. An API
// the package has and the bundled one lacks compiles, then crashes the page in the browser.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bundled = createRequire(import.meta.url)("next/dist/compiled/react") as Record<string, unknown>;

const IMPORT = /import\s*\{([^}]*)\}\s*from\s*"react"/g;

describe("React imports", () => {
  it("name only what the React bundled by Next.js provides", () => {
    const missing: string[] = [];
    const files = readdirSync(path.join(root, "src"), { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
      .map((entry) => path.join(entry.parentPath, entry.name));
    for (const file of files) {
      for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
        for (const part of match[1]!.split(",")) {
          const name = part.trim().split(/\s+as\s+/)[0]!;
          if (!name || name.startsWith("type ")) continue;
          if (!(name in bundled)) missing.push(`${path.relative(root, file)}: ${name}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
