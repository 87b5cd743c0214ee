// The SCIM 2.0 resource schemas Atrium keeps (RFC 7643: the core User with the enterprise
// extension, and Group), and the one function that turns what an identity provider sent into
// the canonical form that is stored: attribute names in their schema's case, "True"/"False"
// strings as booleans, unknown attributes dropped, every value checked and bounded.
import { isStorableText } from "@/schemas/text";
import { AppError } from "@/server/errors";

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const ENTERPRISE_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const LIST_RESPONSE_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const PATCH_OP_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

/** A kept string attribute, in characters. */
export const MAX_SCIM_STRING_CHARS = 2_048;
/** Values of one multi-valued attribute of a user (emails, phoneNumbers, ...). */
export const MAX_SCIM_MULTI_VALUES = 100;
/** Members named in one group request (a whole PUT, or all the operations of a PATCH). */
export const MAX_SCIM_GROUP_MEMBERS = 10_000;
/** Operations in one PATCH request. */
export const MAX_SCIM_PATCH_OPERATIONS = 1_000;

export type ScimType =
  | "uniqueness"
  | "invalidFilter"
  | "invalidSyntax"
  | "invalidValue"
  | "invalidPath"
  | "noTarget"
  | "mutability"
  | "tooMany";

/** A refusal of the SCIM service: the SCIM door answers it as `{schemas:[Error], status, scimType, detail}`. */
export function scimError(
  status: 400 | 404 | 405 | 409 | 413,
  scimType: ScimType | null,
  detail: string,
  headers?: Record<string, string>,
): AppError {
  const code =
    status === 404
      ? "not_found"
      : status === 405
        ? "method_not_allowed"
        : status === 409
          ? "conflict"
          : "invalid_request";
  return new AppError(code, detail, scimType ? { scimType } : {}, { status, headers });
}

type AttributeType = "string" | "boolean" | "complex" | "reference" | "dateTime";

export interface AttributeDef {
  name: string;
  type: AttributeType;
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: "readOnly" | "readWrite" | "immutable" | "writeOnly";
  returned?: "always" | "never" | "default" | "request";
  uniqueness?: "none" | "server";
  subAttributes?: AttributeDef[];
  referenceTypes?: string[];
}

const str = (name: string, extra: Partial<AttributeDef> = {}): AttributeDef => ({ name, type: "string", ...extra });
const multi = (name: string, subAttributes: AttributeDef[]): AttributeDef => ({
  name,
  type: "complex",
  multiValued: true,
  subAttributes,
});
const labelled = [str("value"), str("display"), str("type"), { name: "primary", type: "boolean" } as AttributeDef];

export const USER_ATTRIBUTES: AttributeDef[] = [
  str("userName", { required: true, uniqueness: "server" }),
  {
    name: "name",
    type: "complex",
    subAttributes: [
      str("formatted"),
      str("familyName"),
      str("givenName"),
      str("middleName"),
      str("honorificPrefix"),
      str("honorificSuffix"),
    ],
  },
  str("displayName"),
  str("nickName"),
  { name: "profileUrl", type: "reference", referenceTypes: ["external"] },
  str("title"),
  str("userType"),
  str("preferredLanguage"),
  str("locale"),
  str("timezone"),
  { name: "active", type: "boolean" },
  str("password", { mutability: "writeOnly", returned: "never" }),
  multi("emails", labelled),
  multi("phoneNumbers", labelled),
  multi("ims", labelled),
  multi("photos", labelled),
  multi("addresses", [
    str("formatted"),
    str("streetAddress"),
    str("locality"),
    str("region"),
    str("postalCode"),
    str("country"),
    str("type"),
    { name: "primary", type: "boolean" },
  ]),
  {
    name: "groups",
    type: "complex",
    multiValued: true,
    mutability: "readOnly",
    subAttributes: [
      str("value", { mutability: "readOnly" }),
      { name: "$ref", type: "reference", referenceTypes: ["Group"] },
      str("display"),
      str("type"),
    ],
  },
  multi("entitlements", labelled),
  multi("roles", labelled),
  multi("x509Certificates", labelled),
];

export const ENTERPRISE_ATTRIBUTES: AttributeDef[] = [
  str("employeeNumber"),
  str("costCenter"),
  str("organization"),
  str("division"),
  str("department"),
  {
    name: "manager",
    type: "complex",
    subAttributes: [
      str("value"),
      { name: "$ref", type: "reference", referenceTypes: ["User"] },
      str("displayName", { mutability: "readOnly" }),
    ],
  },
];

export const GROUP_ATTRIBUTES: AttributeDef[] = [
  str("displayName", { required: true }),
  {
    name: "members",
    type: "complex",
    multiValued: true,
    subAttributes: [
      str("value", { mutability: "immutable" }),
      { name: "$ref", type: "reference", referenceTypes: ["User", "Group"] },
      str("display"),
      str("type"),
    ],
  },
];

/** Attributes every resource has (RFC 7643 §3.1), not part of a schema's list. */
export const COMMON_ATTRIBUTES: AttributeDef[] = [
  str("id", { mutability: "readOnly", returned: "always", caseExact: true }),
  str("externalId", { caseExact: true }),
];

export type ResourceKind = "User" | "Group";

export function attributesOf(kind: ResourceKind): AttributeDef[] {
  return kind === "User" ? USER_ATTRIBUTES : GROUP_ATTRIBUTES;
}

export function findDef(defs: readonly AttributeDef[], name: string): AttributeDef | undefined {
  const lower = name.toLowerCase();
  return defs.find((def) => def.name.toLowerCase() === lower);
}

/** Whether `text` starts with `prefix`, ignoring case (schema URNs are case-insensitive). */
export function startsWithIgnoringCase(text: string, prefix: string): boolean {
  return text.length >= prefix.length && text.slice(0, prefix.length).toLowerCase() === prefix.toLowerCase();
}

/** A resource as kept: plain JSON, attribute names in schema case. */
export type ScimObject = Record<string, unknown>;

function isObject(value: unknown): value is ScimObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A boolean as identity providers send them: true/false, or "True"/"False" in any case. */
export function toBoolean(value: unknown, path: string): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const lower = value.trim().toLowerCase();
    if (lower === "true") return true;
    if (lower === "false") return false;
  }
  throw scimError(400, "invalidValue", `${path} must be a boolean (true or false).`);
}

function toText(value: unknown, path: string): string {
  // Numbers are read as text: some providers send employee numbers and postal codes unquoted.
  const text = typeof value === "number" && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== "string") throw scimError(400, "invalidValue", `${path} must be a string.`);
  if (text.length > MAX_SCIM_STRING_CHARS)
    throw scimError(400, "invalidValue", `${path} is longer than ${MAX_SCIM_STRING_CHARS} characters.`);
  if (!isStorableText(text))
    throw scimError(
      400,
      "invalidValue",
      `${path} contains U+0000 or an unpaired UTF-16 surrogate, which cannot be stored.`,
    );
  return text;
}

/** One value of `def` in canonical form; undefined when it is null (unassigned). */
export function canonicalValue(def: AttributeDef, value: unknown, path: string): unknown {
  if (value === null || value === undefined) return undefined;
  if (def.multiValued) {
    const items = Array.isArray(value) ? value : [value];
    const limit = def.name === "members" ? MAX_SCIM_GROUP_MEMBERS : MAX_SCIM_MULTI_VALUES;
    if (items.length > limit) throw scimError(400, "tooMany", `${path} has more than ${limit} values.`);
    return items
      .map((item, index) => canonicalSingle(def, item, `${path}[${index}]`))
      .filter((item) => item !== undefined);
  }
  return canonicalSingle(def, value, path);
}

function canonicalSingle(def: AttributeDef, value: unknown, path: string): unknown {
  if (value === null || value === undefined) return undefined;
  switch (def.type) {
    case "boolean":
      return toBoolean(value, path);
    case "complex": {
      // A bare string for a complex value names its `value` (Okta sends members as ids).
      if (typeof value === "string" && def.subAttributes && findDef(def.subAttributes, "value"))
        return { value: toText(value, `${path}.value`) };
      if (!isObject(value)) throw scimError(400, "invalidValue", `${path} must be an object.`);
      return canonicalObject(def.subAttributes ?? [], value, path);
    }
    default:
      return toText(value, path);
  }
}

/** The known attributes of `value` for `defs`, canonical; unknown ones and write-only or read-only ones are dropped. */
export function canonicalObject(defs: readonly AttributeDef[], value: ScimObject, path = ""): ScimObject {
  const result: ScimObject = {};
  for (const [key, item] of Object.entries(value)) {
    const def = findDef(defs, key);
    if (!def || def.mutability === "writeOnly" || def.mutability === "readOnly") continue;
    const canonical = canonicalValue(def, item, path ? `${path}.${def.name}` : def.name);
    if (canonical !== undefined) result[def.name] = canonical;
  }
  return result;
}

/**
 * A whole User or Group as sent in a POST or PUT (or as a PATCH left it), canonical: the schema's
 * attributes, `externalId`, and for a User the enterprise extension under its URN (sent as an
 * object under the URN, or as `urn:…:User:attribute` keys).
 */
export function canonicalResource(kind: ResourceKind, body: unknown): ScimObject {
  if (!isObject(body)) throw scimError(400, "invalidSyntax", "The body must be a JSON object.");
  const result = canonicalObject(attributesOf(kind), body);
  const externalId = Object.entries(body).find(([key]) => key.toLowerCase() === "externalid")?.[1];
  if (externalId !== undefined && externalId !== null) result.externalId = toText(externalId, "externalId");
  if (kind === "User") {
    const enterprise: ScimObject = {};
    for (const [key, item] of Object.entries(body)) {
      if (key.toLowerCase() === ENTERPRISE_SCHEMA.toLowerCase()) {
        if (item === null) continue;
        if (!isObject(item)) throw scimError(400, "invalidValue", `${ENTERPRISE_SCHEMA} must be an object.`);
        Object.assign(enterprise, canonicalObject(ENTERPRISE_ATTRIBUTES, item, ENTERPRISE_SCHEMA));
      } else if (startsWithIgnoringCase(key, `${ENTERPRISE_SCHEMA}:`)) {
        Object.assign(
          enterprise,
          canonicalObject(
            ENTERPRISE_ATTRIBUTES,
            { [key.slice(ENTERPRISE_SCHEMA.length + 1)]: item },
            ENTERPRISE_SCHEMA,
          ),
        );
      }
    }
    if (Object.keys(enterprise).length) result[ENTERPRISE_SCHEMA] = enterprise;
  }
  return result;
}
