import { EvaluationsPage } from "@/components/builder/evaluations";

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EvaluationsPage kind="apps" id={id} />;
}
