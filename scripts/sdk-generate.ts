// `npm run sdk:generate`: rewrites src/sdk/schema.d.ts from the OpenAPI document.
import { writeFile } from "node:fs/promises";
import { generateSdkTypes } from "@/sdk/generate";

await writeFile(new URL("../src/sdk/schema.d.ts", import.meta.url), await generateSdkTypes());
console.log("src/sdk/schema.d.ts written");
