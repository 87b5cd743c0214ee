// Tenancy in SQL, not only in an earlier check: every Prisma call that finds, updates or deletes a
// row of an organization-owned model by its id also names the organization in the same `where`, so
// a row id that slipped past a lookup (a stale variable, a copied line) still cannot reach another
// organization's row. The model list is read from prisma/schema.prisma, so a new model joins the rule.
// A lookup that has no organization to name (a job naming its row, a link that is its own credential,
// the operator's key rotation over every organization) says why in a `// Unscoped: …` comment on the
// line above.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Models with an organizationId column, as Prisma client accessors (`endUser`, `mcpConnection`…). */
function organizationOwnedModels(): Set<string> {
  const schema = readFileSync(path.join(root, "prisma/schema.prisma"), "utf8");
  const owned = new Set<string>();
  for (const block of schema.split(/^model /m).slice(1)) {
    const name = block.slice(0, block.indexOf(" "));
    if (/^\s+organizationId\s+String\b/m.test(block)) owned.add(name[0]!.toLowerCase() + name.slice(1));
  }
  return owned;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The text of the object literal opening at `start` (a `{`), braces balanced. */
function objectAt(text: string, start: number): string {
  let depth = 0;
  for (let at = start; at < text.length; at++) {
    if (text[at] === "{") depth++;
    else if (text[at] === "}" && --depth === 0) return text.slice(start, at + 1);
  }
  return text.slice(start);
}

const CALL =
  /\.(\w+)\.(findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|update|updateMany|delete|deleteMany)\(\{\s*where: /g;

/** Calls by id on organization-owned models whose `where` does not name the organization. */
function unscopedCalls(): string[] {
  const owned = organizationOwnedModels();
  const found: string[] = [];
  for (const file of ["src/server/services", "src/server/jobs", "src/server/runtime"].flatMap((dir) =>
    sourceFiles(path.join(root, dir)),
  )) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(CALL)) {
      if (!owned.has(match[1]!)) continue;
      const where = objectAt(text, match.index + match[0].length);
      if (!/^\{\s*id\b/.test(where) || /\borganizationId\b/.test(where)) continue;
      const lines = text.slice(0, match.index).split("\n");
      if (/\/\/ Unscoped: \S/.test(lines.at(-2) ?? "")) continue;
      const line = lines.length;
      found.push(`${path.relative(root, file)}:${line} ${match[1]}.${match[2]}`);
    }
  }
  return found;
}

describe("rows found by id are scoped by organization in the same query", () => {
  it("knows the organization-owned models", () => {
    const owned = organizationOwnedModels();
    for (const model of ["endUser", "mcpConnection", "source", "page", "execution", "webhookEndpoint"]) {
      expect(owned.has(model), model).toBe(true);
    }
    expect(owned.has("user")).toBe(false);
  });

  it("names organizationId beside every id", () => {
    expect(unscopedCalls()).toEqual([]);
  });
});
