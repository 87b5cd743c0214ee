import type { Metadata } from "next";
import { PortalLayoutFrame, type PortalLayoutProps } from "@/components/portal/i18n/portal-layout";
import { PortalProviders } from "@/components/portal/portal-trpc";

export const metadata: Metadata = { title: "Atrium" };

export default function PortalLayout({ params, children }: PortalLayoutProps) {
  return (
    <PortalLayoutFrame
      params={params}
      frame={(portal) => <PortalProviders portal={portal}>{children}</PortalProviders>}
    />
  );
}
