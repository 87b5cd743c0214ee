import { PortalConversations } from "@/components/portal/portal-conversations";
import { portalTitle } from "@/components/portal/portal-title";

export async function generateMetadata({ params }: { params: Promise<{ portal: string }> }) {
  return portalTitle((await params).portal, "conversations");
}

export default async function Page({ params }: { params: Promise<{ portal: string }> }) {
  const { portal } = await params;
  return <PortalConversations portal={portal} />;
}
