// The models agents can use: the built-in offline model, always, and the configured provider's.
import { availableModels } from "@/server/runtime/models";

export function listModels(): { models: { id: string; name: string; provider: string }[] } {
  return { models: availableModels() };
}
