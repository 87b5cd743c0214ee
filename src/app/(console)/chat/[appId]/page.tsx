import { ChatView } from "@/components/runtime/chat-view";

export default async function Page({ params }: { params: Promise<{ appId: string }> }) {
  const { appId } = await params;
  return <ChatView appId={appId} />;
}
