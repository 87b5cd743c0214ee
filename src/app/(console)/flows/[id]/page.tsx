import { RecentActivity } from "@/components/console";
import { FlowEditor } from "@/components/builder/flow-editor";

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <>
      <FlowEditor id={id} />
      <RecentActivity targetId={id} />
    </>
  );
}
