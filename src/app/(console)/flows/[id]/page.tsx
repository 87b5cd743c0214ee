import { redirect } from "next/navigation";

// The studio is the one flow editor; old links (and `?view=list`) land in it.
export default async function Page({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ view?: string | string[] }>;
}) {
  const { id } = await params;
  const { view } = await searchParams;
  redirect(`/flows/${encodeURIComponent(id)}/studio${view === "list" ? "?view=list" : ""}`);
}
