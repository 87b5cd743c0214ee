// Finds the database every Atrium process uses: DATABASE_URL when set, else the embedded
// PostgreSQL under DATA_DIR (started if needed, shared when already running), migrated.
import path from "node:path";
import { env } from "@/env";
import { EMBEDDED_DATABASE, ensureDatabase, startEmbeddedCluster } from "./embedded";
import { migrate } from "./migrate";

export interface OpenDatabase {
  url: string;
  embedded: boolean;
  /** Call after closing this process's own connections; whether it stopped the embedded database. */
  release(): Promise<boolean>;
}

export async function openDatabase(log: (line: string) => void = () => {}): Promise<OpenDatabase> {
  const config = env();
  if (config.DATABASE_URL) {
    await migrate(config.DATABASE_URL);
    return { url: config.DATABASE_URL, embedded: false, release: async () => false };
  }
  const cluster = await startEmbeddedCluster(path.join(config.dataDir, "postgres"), { log });
  await ensureDatabase(cluster.adminUrl, EMBEDDED_DATABASE);
  const url = cluster.urlFor(EMBEDDED_DATABASE);
  await migrate(url);
  return { url, embedded: true, release: () => cluster.release() };
}
