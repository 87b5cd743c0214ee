// The language a portal page is rendered in, on the server: from the request's Accept-Language
// and the portal's default (once per request, shared by the layout, the titles and <html lang>).
import { headers } from "next/headers";
import { cache } from "react";
import type { PortalLanguage } from "@/schemas/portal/portal";
import { getDb } from "@/server/db";
import { resolvePortal } from "@/server/services/portal/portals";
import { FALLBACK_LANGUAGE, isPortalLanguage, parseAcceptLanguage, PATH_HEADER, pickLanguage } from "./languages";

export const portalRequest = cache(async (portal: string) => {
  const [found, requestHeaders] = await Promise.all([resolvePortal(getDb(), portal).catch(() => null), headers()]);
  const portalDefault: PortalLanguage = isPortalLanguage(found?.defaultLanguage)
    ? found.defaultLanguage
    : FALLBACK_LANGUAGE;
  return {
    found,
    portalDefault,
    language: pickLanguage(parseAcceptLanguage(requestHeaders.get("accept-language")), portalDefault),
  };
});

/** `<html lang>` for any page: a portal page's language, English elsewhere. */
export async function documentLanguage(): Promise<PortalLanguage> {
  const [first, portal] = ((await headers()).get(PATH_HEADER) ?? "").split("/").filter(Boolean);
  if ((first !== "p" && first !== "embed") || !portal) return FALLBACK_LANGUAGE;
  let ref: string;
  try {
    ref = decodeURIComponent(portal);
  } catch {
    return FALLBACK_LANGUAGE;
  }
  return (await portalRequest(ref)).language;
}
