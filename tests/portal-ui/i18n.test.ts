// The portal's languages: every language has every key of the English text with the same
// placeholders and tags, the plural forms its grammar needs, and the language a person gets is
// the one their browser asks for when the portal speaks it, else the portal's default.
import { describe, expect, it } from "vitest";
import { createPortalI18n, RESOURCES } from "@/components/portal/i18n";
import { parseAcceptLanguage, pickLanguage } from "@/components/portal/i18n/languages";
import { PORTAL_LANGUAGES } from "@/schemas/portal/portal";

const PLURAL = /_(zero|one|two|few|many|other)$/;
/** Tags the HTML parser of react-i18next's <Trans> reads as empty: their text would vanish. */
const VOID_TAGS = [
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
];

function flatten(tree: object, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === "string") out.set(prefix + key, value);
    else for (const [inner, text] of flatten(value as object, `${prefix}${key}.`)) out.set(inner, text);
  }
  return out;
}

/** The `{{name}}` placeholders (formats aside) and `<tag>` names of a text, sorted. */
function slots(text: string): string[] {
  const placeholders = [...text.matchAll(/\{\{\s*(\w+)[^}]*\}\}/g)].map((m) => `{{${m[1]}}}`);
  const tags = [...text.matchAll(/<(\w+)>/g)].map((m) => `<${m[1]}>`);
  return [...placeholders, ...tags].sort();
}

const english = flatten(RESOURCES.en);
const baseKeys = (keys: Iterable<string>) => [...new Set([...keys].map((key) => key.replace(PLURAL, "")))].sort();

describe.each(PORTAL_LANGUAGES)("the %s text", (language) => {
  const texts = flatten(RESOURCES[language]);

  it("has every key of the English text and no other", () => {
    expect(baseKeys(texts.keys())).toEqual(baseKeys(english.keys()));
  });

  it("keeps the English text's placeholders and tags, and says something", () => {
    for (const [key, text] of texts) {
      const reference = english.get(key) ?? english.get(key.replace(PLURAL, "_other"));
      expect(reference, key).toBeDefined();
      expect(slots(text), key).toEqual(slots(reference!));
      for (const slot of slots(text))
        expect(
          VOID_TAGS.map((tag) => `<${tag}>`),
          key,
        ).not.toContain(slot);
      expect(text.trim(), key).not.toBe("");
    }
  });

  it("has the plural forms its grammar asks for, for every counted text", () => {
    const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories.filter((c) => c !== "many");
    const counted = baseKeys([...english.keys()].filter((key) => PLURAL.test(key)));
    for (const key of counted)
      for (const category of categories) expect(texts.has(`${key}_${category}`), `${key}_${category}`).toBe(true);
  });

  it("formats counts with the language's digits and plural", () => {
    const t = createPortalI18n(language).t;
    expect(t("credits.left", { count: 1 })).toMatch(/^1 /);
    expect(t("credits.left", { count: 12345 })).toMatch(
      new RegExp(`^${new Intl.NumberFormat(language).format(12345)} `),
    );
  });
});

describe("which language a person gets", () => {
  it("reads Accept-Language by weight, ignoring q=0 and wildcards, within bounds", () => {
    expect(parseAcceptLanguage("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5")).toEqual(["fr-CH", "fr", "en", "de"]);
    expect(parseAcceptLanguage("en;q=0.1, de")).toEqual(["de", "en"]);
    expect(parseAcceptLanguage("fr;q=0, de;q=bad, en")).toEqual(["en"]);
    expect(parseAcceptLanguage(null)).toEqual([]);
    const started = performance.now();
    expect(parseAcceptLanguage(`${"x;q=1;".repeat(200_000)}`).length).toBeLessThanOrEqual(20);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("takes the first wanted language the portal speaks, then the portal's default, then English", () => {
    expect(pickLanguage(["fr-CA", "en"], "de")).toBe("fr");
    expect(pickLanguage(["ja", "DE-at"], "fr")).toBe("de");
    expect(pickLanguage(["ja", "zh"], "fr")).toBe("fr");
    expect(pickLanguage([], "de")).toBe("de");
    expect(pickLanguage(["ja"], "xx")).toBe("en");
    expect(pickLanguage(["ja"], null)).toBe("en");
  });
});
