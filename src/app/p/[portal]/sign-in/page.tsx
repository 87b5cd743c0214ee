import { PortalSignIn } from "@/components/portal/portal-sign-in";

export default async function Page({ params, searchParams }: { params: Promise<{ portal: string }>; searchParams: Promise<{ reason?: string }> }) {
  const [{ portal }, { reason }] = await Promise.all([params, searchParams]);
  return <PortalSignIn portal={portal} sessionEnded={reason === "ended"} />;
}
