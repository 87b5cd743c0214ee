// Calls the SCIM door (`/scim/v2`) as an identity provider does: real HTTP requests to the
// request listener `npm start` serves (its method gate and route table included), on a loopback
// port opened on first use and closed when the test file ends.
import { onFileEnd } from "../file-end";
import { issueKey, newOrganization, toApiResponse, type ApiResponse, type Tenant } from "../helpers";
import { listenOnLoopback, type LoopbackServer } from "../loopback-server";

let server: Promise<LoopbackServer> | undefined;

function loopback(): Promise<LoopbackServer> {
  if (!server) {
    const opened = (server = listenOnLoopback(0));
    onFileEnd(async () => {
      server = undefined;
      (await opened).close();
    });
  }
  return server;
}

export interface ScimOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export async function scim(method: string, path: string, options: ScimOptions = {}): Promise<ApiResponse> {
  const headers = new Headers(options.headers);
  if (options.key !== undefined) headers.set("authorization", `Bearer ${options.key}`);
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/scim+json");
  const { base } = await loopback();
  return toApiResponse(await fetch(`${base}/scim/v2${path}`, { method, headers, body }));
}

export interface DirectoryTenant extends Tenant {
  /** An organization key with the scim scope only. */
  scimKey: string;
}

export async function directoryTenant(): Promise<DirectoryTenant> {
  const tenant = await newOrganization();
  const key = await issueKey(tenant.operator, { kind: "organization", scopes: ["scim"], name: "Entra ID" });
  return { ...tenant, scimKey: key.secret };
}

export const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";

/** Asserts a SCIM error answer: status, the SCIM error shape, and its scimType (or none). */
export function expectScimError(response: ApiResponse, status: number, scimType?: string): void {
  const { schemas, status: bodyStatus, scimType: type } = response.body ?? {};
  if (response.status !== status || bodyStatus !== String(status) || type !== scimType || schemas?.[0] !== ERROR) {
    throw new Error(`expected SCIM ${status} ${scimType ?? ""}, got ${response.status} ${response.text}`);
  }
  if (!response.headers.get("x-request-id")) throw new Error("no X-Request-Id");
}

export function uniqueUserName(prefix = "person"): string {
  return `${prefix}.${Math.random().toString(36).slice(2, 10)}@contoso.example`;
}
