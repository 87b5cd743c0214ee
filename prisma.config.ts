// Prisma CLI configuration. Only `npm run db:diff` needs a database here: it starts a
// throwaway embedded PostgreSQL and passes its URL (see scripts/db-diff.ts).
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL ?? "" }),
  schema: "prisma/schema.prisma",
});
