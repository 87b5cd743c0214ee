import { PortalChat } from "@/components/portal/portal-chat";
import { portalTitle } from "@/components/portal/portal-title";

export async function generateMetadata({ params }: { params: Promise<{ portal: string }> }) {
  return portalTitle((await params).portal, "chat");
}

export default async function Page({
  params,
  searchParams,
}: {
  params: Promise<{ portal: string; appId: string }>;
  searchParams: Promise<{ c?: string }>;
}) {
  const [{ portal, appId }, { c }] = await Promise.all([params, searchParams]);
  return <PortalChat portal={portal} appId={appId} conversationId={c ?? null} />;
}
