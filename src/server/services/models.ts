// The models agents can use. The built-in offline model is always there; provider-backed
// models arrive with the runtime.
export const BUILTIN_MODEL = { id: "atrium-offline", name: "Atrium offline (extractive, no network)", provider: "builtin" } as const;

export function listModels(): { models: { id: string; name: string; provider: string }[] } {
  return { models: [BUILTIN_MODEL] };
}
