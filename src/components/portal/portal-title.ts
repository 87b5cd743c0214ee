// Page titles of the portal, "<page> · <portal name>", built on the server from the public
// portal (the sign-in page shows its name anyway), in the page's language. Each page builds its
// whole title: a parent layout's template is not reapplied on client-side navigation.
import type { Metadata } from "next";
import { RESOURCES } from "./i18n";
import { portalRequest } from "./i18n/server";

export async function portalTitle(
  portal: string,
  page: "apps" | "conversations" | "signIn" | "chat",
): Promise<Metadata> {
  const { found, language } = await portalRequest(portal);
  const titles = RESOURCES[language].portal.titles;
  return { title: { absolute: found ? `${titles[page]} · ${found.name}` : titles.notFound } };
}
