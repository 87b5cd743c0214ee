// The refund flow that pauses at an approval, shared by the runtime tests
// (tests/runtime/approvals.test.ts) and the console's (e2e/approvals.spec.ts).

export const REFUND_INPUTS = [
  { key: "customer", type: "text", required: true },
  { key: "amount", type: "number", required: true },
];

export const REFUND_NODES = [
  { id: "start", type: "trigger_start" },
  { id: "amount", type: "set_variable", data: { name: "amount", expression: { "*": [{ var: "inputs.amount" }, 1] } } },
  {
    id: "gate",
    type: "approval",
    data: { title: "Refund check", message: "Refund {{vars.amount}} EUR to {{inputs.customer}}?", timeoutMinutes: 60 },
  },
  { id: "after", type: "template", data: { template: "refunded {{vars.amount}} ({{nodes.gate.output}})" } },
  { id: "done", type: "output", data: { value: '{"result": "{{nodes.after.output}}"}' } },
];
