import { PortalConversations } from "@/components/portal/portal-conversations";

export default async function Page({ params }: { params: Promise<{ portal: string }> }) {
  const { portal } = await params;
  return <PortalConversations portal={portal} />;
}
