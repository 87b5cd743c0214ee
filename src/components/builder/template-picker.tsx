"use client";
// "New from template" on the Flows and Apps pages: the starter flows and apps
// (services/builder/builder-templates.ts), each copied as an unpublished flow and an app calling it.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert, notifyDone, Panel, useOpenPage } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { typeLabel } from "./flow-nodes";
import { KnowledgebaseName, KnowledgebasePicker } from "./knowledgebase-picker";

/** A node type as the node library names it; one it does not name yet reads as words ("set_variable" → "Set variable"). */
function stepWords(type: string): string {
  const label = typeLabel(type);
  if (label !== type) return label;
  const words = type.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function TemplatePicker({ open: opens }: { open: "flows" | "apps" }) {
  const trpc = useTRPC();
  const { opening, open } = useOpenPage();
  const templates = useQuery(trpc.builderTemplates.list.queryOptions());
  const [knowledgebaseId, setKnowledgebaseId] = useState<string | null>(null);
  const copy = useMutation(
    trpc.builderTemplates.copy.mutationOptions({
      onSuccess: ({ flow, app }) => {
        notifyDone(`Copied as the flow “${flow.name}” and the app “${app.name}”, both drafts.`);
        open(opens === "flows" ? `/flows/${flow.id}/studio` : `/apps/${app.id}`);
      },
    }),
  );
  return (
    <Panel label="Templates" testId="templates">
      <p className="muted">
        A starter flow and an app that calls it, copied into your organization as drafts. Each runs on the built-in
        model; change anything before you publish.
      </p>
      <ErrorAlert error={templates.error ?? copy.error} />
      <ul className="template-list">
        {templates.data?.templates.map((template) => (
          <li key={template.id} data-testid={`template-${template.id}`}>
            <strong>{template.name}</strong>
            <p className="muted">{template.description}</p>
            <p className="muted">Steps: {template.nodeTypes.map(stepWords).join(", ")}</p>
            {template.afterCopying && <p className="hint">After copying: {template.afterCopying}</p>}
            {template.needsKnowledgebase &&
              (knowledgebaseId ? (
                <p>
                  Searches <KnowledgebaseName id={knowledgebaseId} />{" "}
                  <button type="button" onClick={() => setKnowledgebaseId(null)}>
                    Change
                  </button>
                </p>
              ) : (
                <KnowledgebasePicker label="Knowledgebase it searches" onPick={setKnowledgebaseId} />
              ))}
            <button
              type="button"
              disabled={copy.isPending || opening || (template.needsKnowledgebase && !knowledgebaseId)}
              onClick={() =>
                copy.mutate({
                  templateId: template.id,
                  ...(template.needsKnowledgebase && knowledgebaseId ? { knowledgebaseId } : {}),
                })
              }
            >
              Use “{template.name}”
            </button>
          </li>
        ))}
      </ul>
    </Panel>
  );
}
