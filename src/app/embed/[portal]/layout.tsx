// The embed frame: the portal's pages inside the organization's own page (/embed.js), signed in
// by the token that page hands over. Only the portal's allowed origins may frame it
// (src/server/http/listener.ts sets its frame-ancestors).
import type { Metadata } from "next";
import type { ReactNode } from "react";
import { EmbedGate } from "@/components/portal/embed-gate";
import { PortalI18nProvider } from "@/components/portal/i18n/provider";
import { portalRequest } from "@/components/portal/i18n/server";

export const metadata: Metadata = { title: "Atrium", robots: { index: false } };

export default async function EmbedLayout({
  params,
  children,
}: {
  params: Promise<{ portal: string }>;
  children: ReactNode;
}) {
  const { portal } = await params;
  const { language, portalDefault } = await portalRequest(portal);
  return (
    <PortalI18nProvider language={language} portalDefault={portalDefault}>
      <EmbedGate portal={portal}>{children}</EmbedGate>
    </PortalI18nProvider>
  );
}
