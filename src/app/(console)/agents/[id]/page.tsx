import { RecentActivity } from "@/components/console";
import { AgentEditor } from "@/components/builder/agent-editor";

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <>
      <AgentEditor id={id} />
      <RecentActivity targetId={id} />
    </>
  );
}
