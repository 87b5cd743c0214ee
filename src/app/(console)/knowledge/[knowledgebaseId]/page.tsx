"use client";
import { useParams } from "next/navigation";
import { Suspense } from "react";
import { KnowledgebaseView } from "@/components/knowledge/knowledgebase-view";

/** A knowledgebase's page; its parts live in src/components/knowledge/. */
export default function KnowledgebasePage() {
  const { knowledgebaseId } = useParams<{ knowledgebaseId: string }>();
  return (
    <Suspense fallback={<p className="muted">Loading…</p>}>
      <KnowledgebaseView knowledgebaseId={knowledgebaseId} />
    </Suspense>
  );
}
