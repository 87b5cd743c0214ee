// The layout of a portal's pages, opened directly (/p/…) or framed (/embed/…): the request's
// language, then the door's own frame around the pages.
import type { ReactNode } from "react";
import { PortalI18nProvider } from "./provider";
import { portalRequest } from "./server";

export interface PortalLayoutProps {
  params: Promise<{ portal: string }>;
  children: ReactNode;
}

export async function PortalLayoutFrame({
  params,
  frame,
}: {
  params: PortalLayoutProps["params"];
  frame: (portal: string) => ReactNode;
}) {
  const { portal } = await params;
  const { language, portalDefault } = await portalRequest(portal);
  return (
    <PortalI18nProvider language={language} portalDefault={portalDefault}>
      {frame(portal)}
    </PortalI18nProvider>
  );
}
