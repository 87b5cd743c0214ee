import { PortalSignIn } from "@/components/portal/portal-sign-in";
import { portalTitle } from "@/components/portal/portal-title";

export async function generateMetadata({ params }: { params: Promise<{ portal: string }> }) {
  return portalTitle((await params).portal, "signIn");
}

export default async function Page({
  params,
  searchParams,
}: {
  params: Promise<{ portal: string }>;
  searchParams: Promise<{ reason?: string; sso_error?: string }>;
}) {
  const [{ portal }, { reason, sso_error: ssoError }] = await Promise.all([params, searchParams]);
  return <PortalSignIn portal={portal} sessionEnded={reason === "ended"} ssoError={ssoError?.slice(0, 500)} />;
}
