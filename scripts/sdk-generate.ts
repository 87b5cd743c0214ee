// `npm run sdk:generate`: rewrites the SDK's types (packages/sdk/src/schema.d.ts) from the OpenAPI document.
import { writeFile } from "node:fs/promises";
import { generateSdkTypes, SDK_TYPES_FILE } from "./sdk-types";

await writeFile(SDK_TYPES_FILE, await generateSdkTypes());
console.log("packages/sdk/src/schema.d.ts written");
