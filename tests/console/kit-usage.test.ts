// Console pages are built from the kit (src/components/console, docs/console.md "Console kit"):
// a table is a DataTable (sorts, says when empty, scrolls on a phone), a failed call is an
// ErrorAlert (message, code and request id), a panel's heading sits flush by its class, and an
// input's length comes from src/schemas/limits.ts. This test names each hand-made twin with its
// file and line.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..", "..");
/** What the console renders: its pages and the components they use (the portal has its own look). */
const SCANNED = ["src/app/(console)", "src/components"];
/** The kit's own files, and what the portal shows too (its own look, without the console's stylesheet). */
const SKIPPED = ["src/components/console/", "src/components/portal/", "src/components/chat/"];

interface Rule {
  name: string;
  pattern: RegExp;
  /** Files where the pattern is right, each with the reason. */
  allowed?: Record<string, string>;
}

const RULES: Rule[] = [
  {
    name: "a raw <table> (use DataTable)",
    pattern: /<table[\s>]/,
  },
  { name: 'a hand-written role="alert" (use ErrorAlert)', pattern: /role=["{]+alert/ },
  { name: "a hand-written error paragraph (use ErrorAlert)", pattern: /<(?:p|div)\s+className="error"/ },
  {
    name: "an inline marginTop: 0 (a panel's first line is flush already; else the flush-top class)",
    pattern: /marginTop:\s*0\b/,
    allowed: {
      // Being rewritten by the builder editor work; it adopts Panel there.
      "src/components/builder/app-editor.tsx": "temporary: the builder editor rewrite",
    },
  },
  { name: "a maxLength literal (use src/schemas/limits.ts)", pattern: /maxLength=\{\d/ },
];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".tsx") ? [path] : [];
  });
}

/** `file:line: rule` for each line of `text` that breaks a rule. */
export function kitViolations(path: string, text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, index) =>
      RULES.filter((rule) => rule.pattern.test(line) && !rule.allowed?.[path]).map(
        (rule) => `${path}:${index + 1}: ${rule.name}`,
      ),
    );
}

describe("console pages use the kit", () => {
  it("no console page or component renders a raw table, a hand-written alert, an inline flush or a length literal", () => {
    const found = SCANNED.flatMap((folder) => sourceFiles(join(ROOT, folder)))
      .map((file) => relative(ROOT, file).split("\\").join("/"))
      .filter((path) => !SKIPPED.some((skipped) => path.startsWith(skipped)))
      .flatMap((path) => kitViolations(path, readFileSync(join(ROOT, path), "utf8")));
    expect(found).toEqual([]);
  });

  it("catches what it is there for and leaves the kit's own use and the allowed files alone", () => {
    const tsx = [
      "<table>",
      '<p role="alert" className="error">{message}</p>',
      '<div className="error">Failed</div>',
      "<h2 style={{ marginTop: 0 }}>Keys</h2>",
      "<input maxLength={200} />",
      '<DataTable label="Keys" columns={columns} rows={rows} rowKey={(row) => row.id} empty="None." />',
      "<ErrorAlert error={create.error} />",
      "<input maxLength={MAX_NAME_CHARS} />",
    ].join("\n");
    expect(kitViolations("x.tsx", tsx).map((line) => line.split(":")[1])).toEqual(["1", "2", "3", "4", "5"]);
    expect(kitViolations("src/components/builder/app-editor.tsx", "<h2 style={{ marginTop: 0 }}>App</h2>")).toEqual([]);
  });
});
