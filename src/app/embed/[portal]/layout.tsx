// The embed frame: the portal's pages inside the organization's own page (/embed.js), signed in
// by the token that page hands over. Only the portal's allowed origins may frame it
// (src/server/http/listener.ts sets its frame-ancestors).
import type { Metadata } from "next";
import { EmbedGate } from "@/components/portal/embed-gate";
import { PortalLayoutFrame, type PortalLayoutProps } from "@/components/portal/i18n/portal-layout";

export const metadata: Metadata = { title: "Atrium", robots: { index: false } };

export default function EmbedLayout({ params, children }: PortalLayoutProps) {
  return <PortalLayoutFrame params={params} frame={(portal) => <EmbedGate portal={portal}>{children}</EmbedGate>} />;
}
