// Which language the portal speaks to a person: the first of their browser's languages the portal
// has, else the portal's default, else English. Plain functions, used on the server (from the
// Accept-Language header) and in the browser (from navigator.languages).
import { PORTAL_LANGUAGES, type PortalLanguage } from "@/schemas/portal/portal";

/** Each language's name in itself, for the language menu and the console's setting. */
export const LANGUAGE_NAMES: Record<PortalLanguage, string> = { en: "English", fr: "Français", de: "Deutsch" };

export const FALLBACK_LANGUAGE: PortalLanguage = "en";

/** Where a language chosen in the portal's menu is remembered, on this browser. */
export const LANGUAGE_STORAGE_KEY = "atrium.portal.language";

/** The request header the middleware sets to a page's path, for the root layout's <html lang>. */
export const PATH_HEADER = "x-atrium-path";

/** Headers longer than this are read only this far (a browser sends a few dozen characters). */
const MAX_HEADER_CHARS = 1000;
const MAX_TAGS = 20;

export function isPortalLanguage(value: unknown): value is PortalLanguage {
  return typeof value === "string" && (PORTAL_LANGUAGES as readonly string[]).includes(value);
}

/** "fr-CA" → "fr"; a tag the portal does not speak → null. */
export function supportedLanguage(tag: string): PortalLanguage | null {
  const primary = tag.trim().split("-")[0]!.toLowerCase();
  return isPortalLanguage(primary) ? primary : null;
}

/**
 * The tags of an Accept-Language header, most wanted first ("fr-CH, fr;q=0.9, en;q=0.8" →
 * ["fr-CH", "fr", "en"]); `q=0` means "not this one" and is left out. Split on commas and
 * semicolons only, never a regular expression over the header.
 */
export function parseAcceptLanguage(header: string | null | undefined): string[] {
  if (!header) return [];
  const entries = header
    .slice(0, MAX_HEADER_CHARS)
    .split(",")
    .slice(0, MAX_TAGS)
    .map((entry, index) => {
      const [tag = "", ...params] = entry.split(";");
      const q = params.map((param) => param.trim()).find((param) => param.startsWith("q="));
      const weight = q === undefined ? 1 : Number(q.slice(2));
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((entry) => entry.tag !== "" && entry.tag !== "*" && entry.weight > 0);
  return entries.sort((a, b) => b.weight - a.weight || a.index - b.index).map((entry) => entry.tag);
}

/** The language to speak: the first wanted one the portal has, then the portal's default, then English. */
export function pickLanguage(wanted: readonly string[], portalDefault: string | null | undefined): PortalLanguage {
  for (const tag of wanted) {
    const language = supportedLanguage(tag);
    if (language) return language;
  }
  return isPortalLanguage(portalDefault) ? portalDefault : FALLBACK_LANGUAGE;
}
