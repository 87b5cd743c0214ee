// A step's last test run: in one line on its card and in the list of steps, and whole in the
// inspector (or the step's sheet on a phone): how it ran, what it cost, what it was given (a
// model's prompt as rendered) and its output, where there is room to read them. Nothing here
// loads the canvas, which a phone never does.
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
      {result.input !== undefined && (
        <>
          <h4 id="step-run-input">Input</h4>
          <pre aria-labelledby="step-run-input">{result.input || "(empty)"}</pre>
        </>
      )}
      {result.output !== undefined && (
        <>
          <h4 id="step-run-output">Output</h4>
          <pre aria-labelledby="step-run-output">{result.output || "(empty)"}</pre>
        </>
      )}
    </section>
  );
}

/** How a step ran, what it cost and the start of what it said, on a card and in the list of steps. */
export function StepResultLine({ result }: { result: NodeResult }) {
  const cost = stepCost(result);
  // A condition's note says the way it took, a failure's says why: either reads better than the value.
  const said = result.note ?? result.output;
  return (
    <span className="step-result" data-testid="node-result">
      <span>
        <span className={`run-status ${result.status}`}>{STEP_STATUS_WORDS[result.status]}</span>
        {cost.length > 0 && <span className="muted"> · {cost.join(" · ")}</span>}
      </span>
      {said !== undefined && <span className="step-result-output">{said || "(empty)"}</span>}
    </span>
  );
}
