// Helpers for the knowledge tests: knowledgebases, pages and indexing through the REST door.
import { getDb } from "@/server/db";
import { drainIndexJobs, type IndexingOptions } from "@/server/jobs/indexing";
import { api, newOrganization, type NewOrganizationOptions, type Tenant } from "./helpers";

export async function newKnowledgebase(tenant: Tenant, name = "Handbook"): Promise<string> {
  const response = await api("POST", "/knowledgebases", { key: tenant.orgKey.secret, body: { name } });
  if (response.status !== 201) throw new Error(`create knowledgebase: ${response.status} ${response.text}`);
  return response.body.knowledgebase.id as string;
}

export async function tenantWithKnowledgebase(options: NewOrganizationOptions = {}) {
  const tenant = await newOrganization(options);
  return { tenant, kbId: await newKnowledgebase(tenant) };
}

export async function newPage(key: string, kbId: string, body: Record<string, unknown>) {
  const response = await api("POST", `/knowledgebases/${kbId}/pages`, { key, body });
  if (response.status !== 201) throw new Error(`create page: ${response.status} ${response.text}`);
  return response.body.page.id as string;
}

export async function pageMarkdown(key: string, kbId: string, pageId: string): Promise<string> {
  const response = await api("GET", `/knowledgebases/${kbId}/pages/${pageId}`, { key });
  return response.body.markdown as string;
}

export function drain(options: IndexingOptions = {}) {
  return drainIndexJobs(getDb(), options);
}

export async function sourceOf(key: string, kbId: string, sourceId: string) {
  return (await api("GET", `/knowledgebases/${kbId}/sources/${sourceId}`, { key })).body.source;
}

/** A multipart upload through the REST door. */
export async function upload(
  key: string,
  kbId: string,
  file: { name: string; type?: string; bytes: Uint8Array | string },
  extra: { name?: string; headers?: Record<string, string> } = {},
) {
  const form = new FormData();
  form.append(
    "file",
    new File([typeof file.bytes === "string" ? file.bytes : new Uint8Array(file.bytes)], file.name, {
      type: file.type ?? "",
    }),
  );
  if (extra.name) form.append("name", extra.name);
  const { restHandler, toApiResponse } = await import("./helpers");
  const request = new Request(`http://localhost/api/v1/knowledgebases/${kbId}/sources`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, ...extra.headers },
    body: form,
  });
  return toApiResponse(await restHandler()(request));
}
