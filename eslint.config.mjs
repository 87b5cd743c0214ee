// ESLint flat config: JavaScript and TypeScript recommended rules, the React hooks rules (all on) and the
// rules against super-linear regular expressions.
// Import cycles are checked by madge in `npm run lint` (package.json).
// Not type-aware on purpose: the whole lint stays fast on a small machine; `tsc --noEmit` checks types.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import regexp from "eslint-plugin-regexp";

export default tseslint.config(
  {
    ignores: [
      "src/generated/**",
      ".next/**",
      "dist/**",
      "packages/*/dist/**",
      "packages/sdk/src/schema.d.ts",
      "node_modules/**",
      ".data*/**",
      "test-results/**",
      "playwright-report/**",
      ".test-results/**",
      ".bench/**",
      ".screens/**",
      "next-env.d.ts",
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  reactHooks.configs.flat.recommended,
  {
    rules: {
      // `_`-prefixed names are the convention for a parameter a signature requires but the body ignores.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" },
      ],
    },
  },
  {
    // No regular expression in src/ may backtrack or move super-linearly: it reads untrusted text
    // (documents, page markdown, model output), and one such pattern froze every tenant at once
    // (docs/security.md, "Linear text processing"). Only these two rules: the plugin's stylistic ones
    // would rewrite patterns all over the code for no safety gain.
    files: ["src/**"],
    plugins: { regexp },
    rules: {
      "regexp/no-super-linear-backtracking": "error",
      "regexp/no-super-linear-move": "error",
    },
  },
  {
    // Tests (and the screenshot tour) read JSON documents and response bodies whose shape the assertion itself checks.
    files: ["tests/**", "e2e/**", "scripts/screenshots/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    files: ["**/*.mjs", "**/*.cjs", "**/*.js"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        URL: "readonly",
        Buffer: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
      },
    },
  },
);
