"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useWatch } from "react-hook-form";
import { Button, ErrorAlert, fieldProblem, FormField, Panel, useZodForm } from "@/components/console";
import { useTRPC } from "@/lib/trpc";
import { MAX_MESSAGE_CHARS } from "@/schemas/limits";
import { RetrievalTestInput, type RetrievalTestOutput } from "@/schemas/knowledge/retrieval-test";

/** Asks a question and shows the passages an agent with this knowledgebase would receive. */
export function RetrievalTest({ knowledgebaseId }: { knowledgebaseId: string }) {
  const trpc = useTRPC();
  const form = useZodForm(RetrievalTestInput.omit({ knowledgebaseId: true }), { defaultValues: { question: "" } });
  const draft = useWatch({ control: form.control, name: "question" });
  // The question asked last: the answer is a query of it.
  const [question, setQuestion] = useState("");
  const submit = form.handleSubmit((input) => setQuestion(input.question.trim()));
  const answer = useQuery({
    ...trpc.knowledge.testRetrieval.queryOptions({ knowledgebaseId, question }),
    enabled: question !== "",
  });
  return (
    <Panel title="What would an agent receive?" label="Retrieval test">
      <form className="row grow-first" onSubmit={(event) => void submit(event)}>
        <FormField label="Question" error={fieldProblem(form, "question")}>
          <input
            maxLength={MAX_MESSAGE_CHARS}
            placeholder="e.g. How long do refunds take?"
            {...form.register("question")}
          />
        </FormField>
        <Button type="submit" variant="primary" disabled={draft.trim() === ""}>
          Test retrieval
        </Button>
      </form>
      <ErrorAlert error={answer.error} />
      {answer.data && (
        <p className="muted" data-testid="retrieval-path">
          {retrievalPathText(answer.data.path)}
        </p>
      )}
      {answer.data?.path.rerank && (
        <p className="muted" data-testid="retrieval-rerank">
          {rerankText(answer.data.path.rerank)}
        </p>
      )}
      {answer.data && answer.data.passages.length === 0 && (
        <p className="muted">Nothing matches: an agent would receive no passages for this question.</p>
      )}
      {answer.data && answer.data.passages.length > 0 && (
        <ol data-testid="retrieved-passages">
          {answer.data.passages.map((passage, index) => (
            <li key={index}>
              <strong>{passage.title}</strong>
              <p className="muted passage-text">{passage.text}</p>
            </li>
          ))}
        </ol>
      )}
    </Panel>
  );
}

/** Which ranking answered the retrieval test, and why, in a sentence. */
function retrievalPathText(path: RetrievalTestOutput["path"]): string {
  const model = path.model ?? "";
  switch (path.reason) {
    case "fused":
      return `Hybrid: words and meaning (embedding model ${model}), fused.`;
    case "no_embedding_model":
      return "Lexical (words only): the organization has no embedding model.";
    case "lexical_by_setting":
      return "Lexical (words only): this knowledgebase's search mode is lexical.";
    case "no_vectors":
      return `Lexical (words only): nothing in this knowledgebase is embedded by ${model} yet.`;
    case "question_not_embedded":
      return `Lexical (words only): ${model} did not embed the question in time.`;
    case "nothing_to_search":
      return "Lexical: nothing to search.";
  }
}

type Rerank = NonNullable<RetrievalTestOutput["path"]["rerank"]>;

/** What became of reranking, in a sentence. */
function rerankText(rerank: Rerank): string {
  const model = rerank.model ?? "";
  const took = duration(rerank.ms ?? 0);
  if (rerank.status === "reranked") return `Reranked by ${model} in ${took}.`;
  switch (rerank.reason) {
    case "timed_out":
      return `Not reranked: ${model} timed out after ${took}; the order above is the ranking's.`;
    case "not_a_ranking":
      return `Not reranked: ${model}'s answer was not a ranking of the passages; the order above is the ranking's.`;
    case "provider_error":
      return `Not reranked: ${model} failed after ${took}; the order above is the ranking's.`;
    case "no_chat_model":
      return "Not reranked: the organization has no chat model.";
    case "lexical_by_setting":
      return "Not reranked: this knowledgebase's search mode is lexical, so no model sees its questions.";
    case "nothing_to_rerank":
      return "Not reranked: fewer than two passages to order.";
    default:
      return "Not reranked.";
  }
}

function duration(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}
