import type { Metadata } from "next";
import type { ReactNode } from "react";
import { PortalProviders } from "@/components/portal/portal-trpc";

export const metadata: Metadata = { title: "Atrium" };

export default async function PortalLayout({ params, children }: { params: Promise<{ portal: string }>; children: ReactNode }) {
  const { portal } = await params;
  return <PortalProviders portal={portal}>{children}</PortalProviders>;
}
