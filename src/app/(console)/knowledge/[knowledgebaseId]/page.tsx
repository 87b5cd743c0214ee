"use client";
import { useParams } from "next/navigation";
import { Suspense } from "react";
import { PageLoading } from "@/components/console";
import { KnowledgebaseView } from "@/components/knowledge/knowledgebase-view";

/** A knowledgebase's page; its parts live in src/components/knowledge/. */
export default function KnowledgebasePage() {
  const { knowledgebaseId } = useParams<{ knowledgebaseId: string }>();
  return (
    <Suspense fallback={<PageLoading title="Knowledgebase" />}>
      <KnowledgebaseView knowledgebaseId={knowledgebaseId} />
    </Suspense>
  );
}
