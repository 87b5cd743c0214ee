"use client";
// Knowledgebases chosen by name (agents' knowledge, flows' knowledge_search nodes).
import { EntityName, EntityPicker } from "@/components/entity-picker";

export function KnowledgebaseName({ id, fallback }: { id: string; fallback?: string }) {
  return <EntityName kind="knowledgebase" id={id} fallback={fallback} />;
}

/** Search knowledgebases by name and pick one; those in `exclude` are not offered. */
export function KnowledgebasePicker({
  label,
  exclude = [],
  onPick,
}: {
  label: string;
  exclude?: string[];
  onPick: (id: string) => void;
}) {
  return (
    <EntityPicker
      kinds={["knowledgebase"]}
      label={label}
      exclude={exclude}
      emptyText="No knowledgebases yet: create one under Knowledge."
      onPick={(kb) => onPick(kb.id)}
    />
  );
}
