// Configuration is read in one place: src/env.ts validates the environment once, and nothing else
// under src/ reads process.env (docs/architecture.md, "Configuration is read in one place"). The
// check reads each file's syntax tree, so `process.env` in a string or a comment (a snippet shown
// to people, as in the portal's Embed section) is no read, and a new read anywhere fails here
// until it goes through src/env.ts or joins ALLOWED with why.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const ALLOWED: Record<string, string> = {
  "src/env.ts": "the one reader: validates the environment once and hands it to child processes",
  "src/instrumentation.ts":
    "process.env.NEXT_RUNTIME is replaced by a constant in each Next.js build, which drops the Node.js-only import from the edge build; a call into env.ts would keep it",
};

/** The places in `text` that read the environment: `process.env`, `process["env"]`, or an import of node:process's env. */
function environmentReads(fileName: string, text: string): number[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const lines: number[] = [];
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const isProcess = (node: ts.Node) => ts.isIdentifier(node) && node.text === "process";
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && isProcess(node.expression) && node.name.text === "env")
      lines.push(lineOf(node));
    else if (
      ts.isElementAccessExpression(node) &&
      isProcess(node.expression) &&
      ts.isStringLiteralLike(node.argumentExpression) &&
      node.argumentExpression.text === "env"
    )
      lines.push(lineOf(node));
    else if (
      ts.isImportDeclaration(node) &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      ["process", "node:process"].includes(node.moduleSpecifier.text)
    )
      lines.push(lineOf(node));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

function sourceFiles(): string[] {
  return readdirSync(path.join(root, "src"), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx|mts)$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith(path.join("src", "generated"))); // Prisma's generated client
}

describe("process.env", () => {
  it("is read by src/env.ts alone, but for the places ALLOWED names", () => {
    const reads = sourceFiles()
      .filter((file) => !(file in ALLOWED))
      .flatMap((file) => {
        const text = readFileSync(path.join(root, file), "utf8");
        // Only a file naming `process` can read it; parsing the others would find nothing.
        return text.includes("process") ? environmentReads(file, text).map((line) => `${file}:${line}`) : [];
      });
    expect(reads).toEqual([]);
  });

  it("every place ALLOWED names still reads it (a stale entry is an exception nobody needs)", () => {
    for (const file of Object.keys(ALLOWED)) {
      expect(environmentReads(file, readFileSync(path.join(root, file), "utf8")), file).not.toEqual([]);
    }
  });

  it("finds a read in every form, and none in a string or a comment", () => {
    const sample = [
      "const port = process.env.PORT;",
      'const all = process["env"];',
      'import { env } from "node:process";',
      "const { HOME } = process.env;",
      "const snippet = `new TextEncoder().encode(process.env.SECRET)`;",
      "// process.env.NOT_A_READ",
      'const text = "process.env.ALSO_NOT";',
    ].join("\n");
    expect(environmentReads("sample.ts", sample)).toEqual([1, 2, 3, 4]);
  });
});
