// The SCIM service's own description (RFC 7644 §4): ServiceProviderConfig, ResourceTypes and
// Schemas, built from the attribute definitions in schema.ts so they cannot drift from what is kept.
import {
  COMMON_ATTRIBUTES,
  ENTERPRISE_ATTRIBUTES,
  ENTERPRISE_SCHEMA,
  GROUP_ATTRIBUTES,
  GROUP_SCHEMA,
  LIST_RESPONSE_SCHEMA,
  USER_ATTRIBUTES,
  USER_SCHEMA,
  type AttributeDef,
  type ScimObject,
} from "./schema";
import { MAX_SCIM_COUNT } from "@/server/services/identity/directory-shared";
import { MAX_JSON_BODY_BYTES } from "@/schemas/limits";

const SERVICE_PROVIDER_CONFIG_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";

function attribute(def: AttributeDef): ScimObject {
  return {
    name: def.name,
    type: def.type,
    multiValued: def.multiValued ?? false,
    description: "",
    required: def.required ?? false,
    ...(def.type === "string" || def.type === "reference" ? { caseExact: def.caseExact ?? false } : {}),
    mutability: def.mutability ?? "readWrite",
    returned: def.returned ?? "default",
    uniqueness: def.uniqueness ?? "none",
    ...(def.referenceTypes ? { referenceTypes: def.referenceTypes } : {}),
    ...(def.subAttributes ? { subAttributes: def.subAttributes.map(attribute) } : {}),
  };
}

function schema(id: string, name: string, defs: AttributeDef[], baseUrl: string): ScimObject {
  return {
    schemas: [SCHEMA_SCHEMA],
    id,
    name,
    description: `${name} as Atrium keeps it`,
    attributes: defs.map(attribute),
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${id}` },
  };
}

export function schemas(baseUrl: string): ScimObject[] {
  return [
    schema(USER_SCHEMA, "User", [...USER_ATTRIBUTES, COMMON_ATTRIBUTES[1]!], baseUrl),
    schema(ENTERPRISE_SCHEMA, "EnterpriseUser", ENTERPRISE_ATTRIBUTES, baseUrl),
    schema(GROUP_SCHEMA, "Group", [...GROUP_ATTRIBUTES, COMMON_ATTRIBUTES[1]!], baseUrl),
  ];
}

export function resourceTypes(baseUrl: string): ScimObject[] {
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: "User",
      name: "User",
      endpoint: "/Users",
      description: "A person of the organization's directory; stands for an end user",
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
      meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: "Group",
      name: "Group",
      endpoint: "/Groups",
      description: "A group of the organization's directory; a user group of the organization",
      schema: GROUP_SCHEMA,
      meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/Group` },
    },
  ];
}

export function serviceProviderConfig(baseUrl: string): ScimObject {
  return {
    schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
    documentationUri: `${baseUrl.replace(/\/scim\/v2$/, "")}/docs`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_SCIM_COUNT },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "OAuth Bearer Token",
        description: "An organization key with the scim scope, sent as Authorization: Bearer <key>",
        primary: true,
      },
    ],
    maxPayloadSize: MAX_JSON_BODY_BYTES,
    meta: { resourceType: "ServiceProviderConfig", location: `${baseUrl}/ServiceProviderConfig` },
  };
}

export function listOf(resources: ScimObject[]): ScimObject {
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
