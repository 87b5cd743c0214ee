"use client";
// The console's tRPC client: TanStack Query over /api/trpc, authenticated by the session cookie.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import { z } from "zod";
import { MAX_TRPC_BATCH_CALLS } from "@/schemas/limits";
import type { AppRouter } from "@/server/trpc/root";

// The console's Content-Security-Policy forbids eval; in the browser zod must not compile
// parsers with it, nor probe for it (a blocked probe is still reported as a violation).
if (typeof window !== "undefined") z.config({ jitless: true });

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: false, refetchOnWindowFocus: false } } }));
  const [trpcClient] = useState(() => createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc", maxItems: MAX_TRPC_BATCH_CALLS })] }));
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

/** The product's message for a failed call (the server puts it in the error's message). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : "Something went wrong.";
}
