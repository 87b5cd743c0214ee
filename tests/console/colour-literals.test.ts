// The console and the portal take every colour from the tokens of src/app/theme.css, which have
// a light and a dark value. A colour written anywhere else shows the light theme's value in the
// dark theme (or the other way round), so this test names each one with its file and line.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..", "..");
const SRC = join(ROOT, "src");
/**
 * Where colour literals belong: the tokens, the portal's contrast arithmetic over brand colours,
 * and what is drawn outside any stylesheet (the home-screen icon's image, the web app manifest,
 * the embed widget's launcher in another site's page, where the tokens do not exist).
 */
const ALLOWED = new Set([
  "src/app/theme.css",
  "src/lib/portal-theme.ts",
  "src/app/apple-icon.tsx",
  "src/app/manifest.ts",
  "src/server/embed/widget-script.ts",
]);
const SKIPPED_FOLDERS = new Set(["generated"]);

const NAMED_COLOURS =
  "white|black|red|green|blue|gray|grey|silver|orange|yellow|purple|pink|navy|maroon|olive|teal|aqua|fuchsia|lime|brown|gold|tomato|crimson|indigo|violet|beige|ivory|khaki|salmon|coral|whitesmoke|gainsboro|lightgray|lightgrey|darkgray|darkgrey|dimgray";
const HEX = /#[0-9a-f]{3,8}\b/i;
const COLOUR_FUNCTION = /\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\(/i;
const COLOUR_PROPERTY = /color|background|border|outline|fill|stroke|shadow/i;
const NAMED = new RegExp(`(?:^|[\\s,(])(?:${NAMED_COLOURS})(?=$|[\\s,);!])`, "i");
const QUOTED_NAMED = new RegExp(`^["'\`](?:${NAMED_COLOURS})["'\`]`, "i");

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : sourceFiles(path);
    return /\.(css|tsx?)$/.test(entry.name) ? [path] : [];
  });
}

/** Blanks comments, keeping line breaks so that line numbers stay right. */
function withoutComments(text: string, css: boolean): string {
  const blank = (comment: string) => comment.replace(/[^\n]/g, " ");
  const block = text.replace(/\/\*[\s\S]*?\*\//g, blank);
  return css
    ? block
    : block.replace(/(^|[\s;{}(),])\/\/[^\n]*/g, (whole, before: string) => before + blank(whole.slice(before.length)));
}

/** `file:line: text` for each colour literal outside the tokens. */
export function colourLiterals(path: string, text: string): string[] {
  const css = path.endsWith(".css");
  const found: string[] = [];
  withoutComments(text, css)
    .split("\n")
    .forEach((line, index) => {
      const where = `${path}:${index + 1}: ${line.trim()}`;
      if (css) {
        // Declarations only: a selector (`#main:hover {`) ends at its brace.
        const declarations = [...line.matchAll(/(?:^|[{;])\s*([a-z-]+)\s*:\s*([^;{}]*)(?=;|}|$)/gi)];
        const coloured = declarations.some(
          ([, property = "", value = ""]) =>
            HEX.test(value) || COLOUR_FUNCTION.test(value) || (COLOUR_PROPERTY.test(property) && NAMED.test(value)),
        );
        if (coloured) found.push(where);
        return;
      }
      const strings = line.match(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`/g) ?? [];
      if (strings.some((s) => HEX.test(s) || COLOUR_FUNCTION.test(s))) found.push(where);
      else if (
        /\b(?:color|background\w*|border\w*|fill|stroke)\s*[:=]\s*\{?\s*["'`]/i.test(line) &&
        strings.some((s) => QUOTED_NAMED.test(s))
      )
        found.push(where);
    });
  return found;
}

describe("colours come from the theme tokens", () => {
  it("no stylesheet, inline style or component outside the token files writes a colour literal", () => {
    const found = sourceFiles(SRC).flatMap((file) => {
      const path = relative(ROOT, file).split("\\").join("/");
      return ALLOWED.has(path) ? [] : colourLiterals(path, readFileSync(file, "utf8"));
    });
    expect(found).toEqual([]);
  });

  it("catches the literals it is there for, and leaves tokens and anchors alone", () => {
    const css = [
      "a { color: #fff; }",
      ".x {",
      "  background: rgb(0 0 0 / 0.5);",
      "  border: 1px solid white;",
      "  color: var(--text);",
      "}",
      "#main:hover {",
    ].join("\n");
    expect(colourLiterals("x.css", css)).toEqual([
      "x.css:1: a { color: #fff; }",
      "x.css:3: background: rgb(0 0 0 / 0.5);",
      "x.css:4: border: 1px solid white;",
    ]);
    expect(colourLiterals("a.css", ".a {\n  color: #fff;\n  /* was #000 */\n}")).toEqual(["a.css:2: color: #fff;"]);
    const tsx = [
      '<p style={{ color: "#c92a2a" }} />',
      '<Bar fill="rgba(0,0,0,.2)" />',
      '<div style={{ background: "white" }} />',
      '<a href="#main" style={{ color: "var(--link)" }} />',
      "// issue #123 was about a colour",
    ].join("\n");
    expect(colourLiterals("x.tsx", tsx).map((line) => line.split(":")[1])).toEqual(["1", "2", "3"]);
  });
});
