// What the built-in model reads at a flow's LLM step. A provider model reads the prompt as
// written, earlier outputs pasted in. The offline model only extracts sentences, so it is handed
// the question (the prompt with the flow's inputs filled in) apart from what the earlier steps
// found (a knowledge search's passages, other steps' outputs and variables the prompt names),
// and answers from the latter: a flow that searched and then asked answers from what it found,
// whether or not its prompt names the search.
import type { AnswerInput, Passage } from "./model-types";
import { show, TEMPLATE_REFERENCE, type TemplateScope } from "./templates";

export function offlineStepInput(
  prompt: string,
  scope: TemplateScope,
): Pick<AnswerInput, "message" | "knowledge" | "leadWhenUnmatched"> {
  const context: Passage[] = [];
  const inputs: Passage[] = [];
  const named = new Set<string>();
  for (const [reference, space, key] of prompt.matchAll(TEMPLATE_REFERENCE)) {
    // A step named twice in the prompt is read once.
    if (named.has(`${space}.${key}`)) continue;
    named.add(`${space}.${key}`);
    if (space === "nodes" && Object.hasOwn(scope.nodes, key!)) {
      const found = scope.passages?.[key!];
      context.push(...(found ?? [{ title: key!, text: scope.nodes[key!]!.output }]));
    } else if (space === "vars" && scope.vars && Object.hasOwn(scope.vars, key!))
      context.push({ title: key!, text: show(scope.vars[key!]) });
    else if (space === "inputs" && Object.hasOwn(scope.inputs, key!))
      inputs.push({ title: key!, text: show(scope.inputs[key!]) });
    else if (space === "loop" && key === "item") context.push({ title: reference, text: show(scope.loop?.item) });
  }
  // Nothing earlier named: what earlier knowledge searches found is what the step answers from
  // (a prompt that says only "Answer {{inputs.q}}" after a search); with no search either, the
  // inputs are the text to work on (a summariser), and the prompt's own words are the instruction.
  if (context.length === 0) context.push(...Object.values(scope.passages ?? {}).flat());
  const fromInputs = context.length === 0;
  const message = prompt.replace(TEMPLATE_REFERENCE, (_match, space: string, key: string) =>
    !fromInputs && space === "inputs" ? show(scope.inputs[key]) : " ",
  );
  return { message, knowledge: fromInputs ? inputs : context, leadWhenUnmatched: true };
}
