"use client";
// The console's tRPC client: TanStack Query over /api/trpc, authenticated by the session cookie.
import { QueryClientProvider } from "@tanstack/react-query";
import { FreshQueryClient } from "./query-client";
import { createTRPCClient, httpBatchLink, httpLink, splitLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import { MAX_TRPC_BATCH_CALLS } from "@/schemas/limits";
import type { AppRouter } from "@/server/trpc/root";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** A call's `context` may carry an Idempotency-Key (one per intent, e.g. a Publish click); such a call goes alone, with the header. */
export interface CallContext {
  idempotencyKey?: string;
  [key: string]: unknown;
}

/** A fresh key for one intent (crypto.randomUUID needs a secure context; getRandomValues does not). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `console-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

function keyOf(context: CallContext): string | undefined {
  return typeof context.idempotencyKey === "string" ? context.idempotencyKey : undefined;
}

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new FreshQueryClient({
        defaultOptions: { queries: { staleTime: 5_000, retry: false, refetchOnWindowFocus: false } },
      }),
  );
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        splitLink({
          condition: (op) => keyOf(op.context as CallContext) !== undefined,
          true: httpLink({
            url: "/api/trpc",
            headers: ({ op }) => ({ "Idempotency-Key": keyOf(op.context as CallContext)! }),
          }),
          false: httpBatchLink({ url: "/api/trpc", maxItems: MAX_TRPC_BATCH_CALLS }),
        }),
      ],
    }),
  );
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
