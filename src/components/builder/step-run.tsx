// The selected step's last test run, in the inspector (or the step's sheet on a phone): how it
// ran, what it cost, and its whole output, where there is room to read it.
import { STEP_STATUS_WORDS, stepCost, type NodeResult } from "./run-results";

export function StepRun({ result }: { result: NodeResult }) {
  const cost = stepCost(result);
  return (
    <section className="step-run" aria-labelledby="step-run-heading" data-testid="step-run">
      <h3 id="step-run-heading">Last test run</h3>
      <p className="flush-top">
        <span className={`run-status ${result.status}`}>{STEP_STATUS_WORDS[result.status]}</span>
        {cost.length > 0 && <span className="muted"> · {cost.join(" · ")}</span>}
      </p>
      {result.status === "skipped" && !result.note && (
        <p className="muted">The run went another way, or stopped before this step.</p>
      )}
      {result.note && <p>{result.note}</p>}
      {result.output !== undefined && <pre aria-label="Output">{result.output || "(empty)"}</pre>}
    </section>
  );
}
