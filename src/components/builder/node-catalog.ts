// The node library's shelves: every type the flow schema knows (NODE_TYPES, the one registry),
// grouped and described for a builder. A type the schema gains before this file describes it
// still shows, under "More", so a new node (an approval, say) is offered the day the server has it.
import { NODE_TYPES } from "@/schemas/builder/builder";
import { typeLabel } from "./flow-nodes";

export interface LibraryEntry {
  type: string;
  label: string;
  group: string;
  description: string;
}

/** The shelves in the order the library shows them. */
export const LIBRARY_GROUPS = ["Start and end", "AI and knowledge", "Logic", "Data", "Integrations", "People", "More"];

const DESCRIBED: Record<string, { group: string; description: string }> = {
  trigger_start: { group: "Start and end", description: "Where the run begins; hands on the flow's inputs" },
  output: { group: "Start and end", description: "The flow's final answer" },
  llm: { group: "AI and knowledge", description: "Asks a model with a prompt" },
  knowledge_search: { group: "AI and knowledge", description: "Finds passages in a knowledgebase" },
  condition: { group: "Logic", description: "Goes one way or another by rules" },
  loop: { group: "Logic", description: "Runs steps for each item of a list" },
  template: { group: "Data", description: "Writes text from variables" },
  set_variable: { group: "Data", description: "Keeps a value for later steps" },
  code: { group: "Data", description: "Computes with JavaScript in a sandbox" },
  http_request: { group: "Integrations", description: "Calls a web address" },
  approval: { group: "People", description: "Waits for a person to approve" },
};

/** The library's entries whose name, type or description holds `query`, in shelf order. */
export function libraryEntries(query = "", types: readonly string[] = NODE_TYPES): LibraryEntry[] {
  const needle = query.trim().toLowerCase();
  return types
    .map((type) => ({
      type,
      label: typeLabel(type),
      group: DESCRIBED[type]?.group ?? "More",
      description: DESCRIBED[type]?.description ?? "",
    }))
    .filter((entry) => [entry.label, entry.type, entry.description].some((text) => text.toLowerCase().includes(needle)))
    .sort((a, b) => LIBRARY_GROUPS.indexOf(a.group) - LIBRARY_GROUPS.indexOf(b.group));
}

/** The drag-and-drop format a library entry carries onto the canvas. */
export const NODE_DRAG_TYPE = "application/x-atrium-node-type";
