// What a run cost, as a builder reads it beside its answer: "2 credits · 1,204 tokens in, 88 out".
const count = new Intl.NumberFormat("en-US");

export function costWords(run: { credits: number; inputTokens?: number | null; outputTokens?: number | null }): string {
  const credits = `${count.format(run.credits)} credit${run.credits === 1 ? "" : "s"}`;
  if (run.inputTokens == null || run.outputTokens == null) return credits;
  return `${credits} · ${count.format(run.inputTokens)} tokens in, ${count.format(run.outputTokens)} out`;
}
