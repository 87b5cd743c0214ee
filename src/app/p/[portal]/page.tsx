import { PortalHome } from "@/components/portal/portal-home";

export default async function Page({ params }: { params: Promise<{ portal: string }> }) {
  const { portal } = await params;
  return <PortalHome portal={portal} />;
}
