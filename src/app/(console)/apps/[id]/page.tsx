import { RecentActivity } from "@/components/console";
import { AppEditor } from "@/components/builder/app-editor";

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <>
      <AppEditor id={id} />
      <RecentActivity targetId={id} />
    </>
  );
}
