// An end user's data as the contract's "Data rights" section lists it: the export document
// (GET /end-users/{id}/export) and the erasure's answer (POST /end-users/{id}/erase).
import { z } from "zod";
import { Timestamp, Uuid } from "../common";
import { EndUserDetail } from "./provisioning";

const ExportedMessage = z.object({
  id: Uuid,
  role: z.string(),
  content: z.string(),
  citations: z.unknown().meta({ description: "The reply's numbered citations, as stored" }),
  supersededAt: Timestamp.nullable(),
  createdAt: Timestamp,
});

const ExportedConversation = z.object({
  id: Uuid,
  appId: Uuid,
  portalId: Uuid.nullable(),
  title: z.string(),
  hiddenAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  messages: z.array(ExportedMessage),
});

const ExportedExecution = z.object({
  id: Uuid,
  kind: z.string(),
  itemId: Uuid,
  status: z.string(),
  credits: z.number().int(),
  input: z.string(),
  output: z.string(),
  feedbackRating: z.string().nullable(),
  feedbackReason: z.string().nullable(),
  createdAt: Timestamp,
});

/** A person's decision a run of theirs waited for (a flow's approval node): what it asked, and the answer. */
const ExportedApproval = z.object({
  executionId: Uuid,
  nodeId: z.string(),
  message: z.string(),
  status: z.string(),
  decidedBy: z.string().nullable(),
  decidedAt: Timestamp.nullable(),
  comment: z.string().nullable(),
  createdAt: Timestamp,
});

const ExportedAuditEvent = z.object({
  id: Uuid,
  occurredAt: Timestamp,
  action: z.string(),
  door: z.string(),
  actorLabel: z.string(),
  targetType: z.string(),
  targetLabel: z.string(),
  changes: z.unknown(),
});

export const EndUserExport = z
  .object({
    exportedAt: Timestamp,
    endUser: EndUserDetail,
    groups: z.array(z.object({ id: Uuid, name: z.string(), addedAt: Timestamp })),
    portalSessions: z.array(z.object({ id: Uuid, createdAt: Timestamp, expiresAt: Timestamp })),
    conversations: z.array(ExportedConversation),
    executions: z.array(ExportedExecution),
    approvals: z.array(ExportedApproval),
    creditRequests: z.array(
      z.object({
        id: Uuid,
        message: z.string(),
        status: z.string(),
        createdAt: Timestamp,
        resolvedAt: Timestamp.nullable(),
      }),
    ),
    notebookPages: z.array(z.object({ id: Uuid, title: z.string(), markdown: z.string(), updatedAt: Timestamp })),
    directoryUsers: z.array(
      z.object({
        userName: z.string(),
        externalId: z.string().nullable(),
        active: z.boolean(),
        attributes: z.unknown(),
      }),
    ),
    auditEvents: z.array(ExportedAuditEvent),
    attachments: z.array(
      z.object({
        id: Uuid,
        conversationId: Uuid.nullable(),
        name: z.string(),
        format: z.string(),
        sizeBytes: z.number().int(),
        createdAt: Timestamp,
      }),
    ),
  })
  .meta({ id: "EndUserExport" });
export type EndUserExport = z.infer<typeof EndUserExport>;

export const EraseEndUserOutput = z.object({
  endUser: z.object({ id: Uuid, erasedAt: Timestamp }),
});
export type EraseEndUserOutput = z.infer<typeof EraseEndUserOutput>;
