// A condition branch's rule (`when`, JSON Logic) as the simple form edits it: a variable, an
// operator and a value, or "always" (`true`). Anything else is edited as JSON Logic.

export const OPERATORS = [
  { op: "==", label: "is" },
  { op: "!=", label: "is not" },
  { op: ">", label: "is more than" },
  { op: "<", label: "is less than" },
  { op: "contains", label: "contains" },
] as const;
export type Operator = (typeof OPERATORS)[number]["op"];

export interface SimpleRule {
  /** The variable's path (`inputs.tier`, `nodes.search.output`, `vars.score`), "" for always. */
  path: string;
  op: Operator;
  value: string;
}

/** `{{inputs.tier}}` → `inputs.tier`: the path JSON Logic's `var` reads. */
export const pathOf = (reference: string) =>
  reference.startsWith("{{") && reference.endsWith("}}") ? reference.slice(2, -2).trim() : reference;

const isVar = (value: unknown): value is { var: string } =>
  !!value && typeof value === "object" && typeof (value as { var?: unknown }).var === "string";

/** The rule as the simple form shows it, or null when only JSON Logic can say it. */
export function simpleRule(when: unknown): SimpleRule | null {
  if (when === true) return { path: "", op: "==", value: "" };
  if (!when || typeof when !== "object" || Array.isArray(when)) return null;
  const entries = Object.entries(when);
  if (entries.length !== 1) return null;
  const [op, args] = entries[0]!;
  if (!Array.isArray(args) || args.length !== 2) return null;
  const [left, right] = args as [unknown, unknown];
  const plain = (value: unknown) =>
    typeof value === "string" || typeof value === "number" || typeof value === "boolean";
  if (op === "in" && isVar(right) && plain(left)) return { path: right.var, op: "contains", value: String(left) };
  if (OPERATORS.some((o) => o.op === op) && op !== "contains" && isVar(left) && plain(right))
    return { path: left.var, op: op as Operator, value: String(right) };
  return null;
}

/** The JSON Logic a simple rule means; a number typed for a comparison is compared as a number. */
export function ruleLogic(rule: SimpleRule): unknown {
  if (rule.path === "") return true;
  const variable = { var: rule.path };
  if (rule.op === "contains") return { in: [rule.value, variable] };
  const numeric = rule.value.trim() !== "" && Number.isFinite(Number(rule.value));
  return { [rule.op]: [variable, numeric && rule.op !== "==" && rule.op !== "!=" ? Number(rule.value) : rule.value] };
}
