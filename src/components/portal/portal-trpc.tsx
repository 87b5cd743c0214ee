"use client";
// The portal's tRPC client over /api/portal/trpc (the end-user session cookie, or the embed's
// bearer session), with its own query cache: a 401 from any call means the session ended, and
// the portal goes to its sign-in page (in the embed, asks the page for a new token).
import { MutationCache, QueryCache, QueryClientProvider } from "@tanstack/react-query";
import { FreshQueryClient } from "@/lib/query-client";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState, type ReactNode } from "react";
import { MAX_TRPC_BATCH_CALLS } from "@/schemas/limits";
import type { PortalRouter } from "@/server/trpc/portal-root";
import { embedSessionHeaders } from "./embed-session";
import { isUnauthorized } from "./portal-errors";
import { usePortalPlace } from "./portal-place";
import { wasSignedIn } from "./session-memory";

export const { TRPCProvider: PortalTRPCProvider, useTRPC: usePortalTRPC } = createTRPCContext<PortalRouter>();

export function signInPath(portal: string): string {
  return `/p/${encodeURIComponent(portal)}/sign-in`;
}

/**
 * Sends the end user to sign in, saying so when a session they had has ended (revoked, expired).
 * The sign-in page forgets the session, so several calls failing at once all say the same.
 */
export function useSignInRedirect(portal: string) {
  const router = useRouter();
  const { onSessionEnded } = usePortalPlace();
  return useCallback(() => {
    // In the embed there is no sign-in page: the page the chat sits in hands over a new token.
    if (onSessionEnded) onSessionEnded();
    else router.replace(`${signInPath(portal)}${wasSignedIn(portal) ? "?reason=ended" : ""}`);
  }, [router, portal, onSessionEnded]);
}

export function PortalProviders({ portal, children }: { portal: string; children: ReactNode }) {
  const toSignIn = useSignInRedirect(portal);
  // The cache is made once; a failed call that says the session ended sends the person to sign in.
  const [queryClient] = useState(
    () =>
      new FreshQueryClient({
        queryCache: new QueryCache(),
        mutationCache: new MutationCache(),
        defaultOptions: { queries: { staleTime: 5_000, retry: false, refetchOnWindowFocus: false } },
      }),
  );
  useEffect(() => {
    const failed = (event: { type: string; action?: { type: string; error?: unknown } }) => {
      if (event.type === "updated" && event.action?.type === "error" && isUnauthorized(event.action.error)) toSignIn();
    };
    const queries = queryClient.getQueryCache().subscribe(failed);
    const mutations = queryClient.getMutationCache().subscribe(failed);
    return () => {
      queries();
      mutations();
    };
  }, [queryClient, toSignIn]);
  const [trpcClient] = useState(() =>
    createTRPCClient<PortalRouter>({
      links: [httpBatchLink({ url: "/api/portal/trpc", maxItems: MAX_TRPC_BATCH_CALLS, headers: embedSessionHeaders })],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <PortalTRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </PortalTRPCProvider>
    </QueryClientProvider>
  );
}
