import { PortalHome } from "@/components/portal/portal-home";
import { portalTitle } from "@/components/portal/portal-title";

export async function generateMetadata({ params }: { params: Promise<{ portal: string }> }) {
  return portalTitle((await params).portal, "apps");
}

export default async function Page({ params }: { params: Promise<{ portal: string }> }) {
  const { portal } = await params;
  return <PortalHome portal={portal} />;
}
