// Page titles of the portal, "<page> · <portal name>", built on the server from the public
// portal (the sign-in page shows its name anyway). Each page builds its whole title: a parent
// layout's template is not reapplied on client-side navigation.
import type { Metadata } from "next";
import { getDb } from "@/server/db";
import { resolvePortal } from "@/server/services/portals";

export async function portalTitle(portal: string, page: string): Promise<Metadata> {
  const found = await resolvePortal(getDb(), portal).catch(() => null);
  return { title: { absolute: found ? `${page} · ${found.name}` : "Portal not found" } };
}
