import type { Metadata } from "next";
import type { ReactNode } from "react";
import { PortalI18nProvider } from "@/components/portal/i18n/provider";
import { portalRequest } from "@/components/portal/i18n/server";
import { PortalProviders } from "@/components/portal/portal-trpc";

export const metadata: Metadata = { title: "Atrium" };

export default async function PortalLayout({
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
      <PortalProviders portal={portal}>{children}</PortalProviders>
    </PortalI18nProvider>
  );
}
