import { FlowStudio } from "@/components/builder/studio/flow-studio";

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <FlowStudio id={id} />;
}
