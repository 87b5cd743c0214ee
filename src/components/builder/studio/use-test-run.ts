"use client";
// A test run of the flow's draft from the studio: the inputs as a JSON object through the preview
// (a test execution, 1 credit), then its execution's trace read as each node's result. The inputs
// typed are kept here, in the studio, so they survive the panel's tab being switched away.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useTRPC } from "@/lib/trpc";
import type { FlowNode } from "@/schemas/builder/builder";
import { nodeResults } from "../run-results";

export function useTestRun(id: string, nodes: FlowNode[]) {
  const trpc = useTRPC();
  const [values, setValues] = useState<Record<string, unknown>>({});
  const preview = useMutation(trpc.runtime.flowTests.preview.mutationOptions());
  const executionId = preview.data?.executionId;
  const execution = useQuery({
    ...trpc.runtime.execution.queryOptions({ executionId: executionId ?? "" }, { staleTime: Infinity }),
    enabled: executionId !== undefined,
  });
  const ran = execution.data?.execution;
  const results = useMemo(() => (ran ? nodeResults(ran, nodes) : undefined), [ran, nodes]);
  return {
    values,
    setValues,
    run: (inputs: Record<string, unknown>) => preview.mutate({ id, message: JSON.stringify(inputs), history: [] }),
    pending: preview.isPending || (executionId !== undefined && execution.isLoading),
    error: preview.error ?? execution.error,
    answer: preview.data,
    execution: ran,
    results,
  };
}

export type TestRun = ReturnType<typeof useTestRun>;
