// The deterministic test embedder that tests/fake-openai.ts serves at `/v1/embeddings`: no weights
// can be downloaded here, so vectors are hashed bags of words (and of character trigrams), after
// mapping the words of a small synonym table to one concept. It knows nothing of meaning beyond
// that table: figures made with it are a test embedder's figures.
import { createHash } from "node:crypto";

export const TEST_DIMENSIONS = 256;

/** Words that mean the same to the test embedder (and not to the lexical ranking). */
const CONCEPTS: Record<string, string> = {
  automobile: "car",
  vehicle: "car",
  cars: "car",
  physician: "doctor",
  doctors: "doctor",
  holiday: "vacation",
  holidays: "vacation",
  leave: "vacation",
};

function bucket(feature: string): { index: number; sign: number } {
  const digest = createHash("md5").update(feature).digest();
  return { index: digest.readUInt16BE(0) % TEST_DIMENSIONS, sign: digest[2]! & 1 ? 1 : -1 };
}

/** The test embedder: words weigh 1, character trigrams of longer words 0.3. */
export function testEmbedding(text: string): number[] {
  const vector = new Array<number>(TEST_DIMENSIONS).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const raw of words) {
    const word = CONCEPTS[raw] ?? raw;
    const { index, sign } = bucket(`w:${word}`);
    vector[index]! += sign;
    if (word.length > 4) {
      for (let i = 0; i + 3 <= word.length; i++) {
        const trigram = bucket(`t:${word.slice(i, i + 3)}`);
        vector[trigram.index]! += 0.3 * trigram.sign;
      }
    }
  }
  return vector;
}
