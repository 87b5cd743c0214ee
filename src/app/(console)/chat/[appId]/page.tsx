import { ChatView } from "@/components/runtime/chat-view";
import { Uuid } from "@/schemas/common";

export default async function Page({
  params,
  searchParams,
}: {
  params: Promise<{ appId: string }>;
  searchParams: Promise<{ c?: string | string[] }>;
}) {
  const [{ appId }, { c }] = await Promise.all([params, searchParams]);
  // An address that names no conversation opens a new one.
  const named = Uuid.safeParse(c);
  return <ChatView appId={appId} initialConversationId={named.success ? named.data : null} />;
}
