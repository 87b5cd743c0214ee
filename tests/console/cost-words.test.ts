// A run's cost in words, shown under a draft preview's answer and a studio test run.
import { describe, expect, it } from "vitest";
import { costWords } from "@/lib/cost-words";

describe("costWords", () => {
  it("says the credits and the tokens read and written", () => {
    expect(costWords({ credits: 1, inputTokens: 10, outputTokens: 5 })).toBe("1 credit · 10 tokens in, 5 out");
    expect(costWords({ credits: 1250, inputTokens: 120_400, outputTokens: 0 })).toBe(
      "1,250 credits · 120,400 tokens in, 0 out",
    );
  });

  it("says only the credits of a run recorded before tokens were metered", () => {
    expect(costWords({ credits: 0, inputTokens: null, outputTokens: null })).toBe("0 credits");
  });
});
