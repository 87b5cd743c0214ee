// Credits an end user is given beyond their plan: bonus credits and requests for more.
import { z } from "zod";
import { plainText, Timestamp, Uuid } from "../common";
import { MAX_PAGE_SIZE } from "../limits";

/** Most bonus credits one grant gives, and most a pool may hold at once (int4 stays far away). */
export const MAX_BONUS_CREDITS_PER_GRANT = 1_000_000;
export const MAX_BONUS_CREDITS_PER_POOL = 1_000_000_000;
export const MAX_CREDIT_REQUEST_CHARS = 500;

export const GrantBonusCreditsInput = z.strictObject({
  endUserId: Uuid,
  tierPlanId: Uuid,
  credits: z
    .number()
    .int()
    .min(1)
    .max(MAX_BONUS_CREDITS_PER_GRANT)
    .meta({ description: "Added to the subscription's bonus credits, which stay until the pool resets" }),
  reason: plainText(MAX_CREDIT_REQUEST_CHARS).trim().optional(),
});
export type GrantBonusCreditsInput = z.infer<typeof GrantBonusCreditsInput>;

export const CreditRequestMessage = plainText(MAX_CREDIT_REQUEST_CHARS).trim();
export const CreditRequest = z
  .object({
    id: Uuid,
    endUserId: Uuid,
    message: z.string(),
    status: z.enum(["open", "granted", "dismissed"]),
    createdAt: Timestamp,
    resolvedAt: Timestamp.nullable(),
  })
  .meta({ id: "CreditRequest" });
export type CreditRequest = z.infer<typeof CreditRequest>;
export const ListCreditRequestsInput = z.strictObject({ endUserId: Uuid });
export type ListCreditRequestsInput = z.infer<typeof ListCreditRequestsInput>;
export const ListCreditRequestsOutput = z.object({ creditRequests: z.array(CreditRequest) });
export const DismissCreditRequestInput = z.strictObject({ endUserId: Uuid, creditRequestId: Uuid });
export type DismissCreditRequestInput = z.infer<typeof DismissCreditRequestInput>;

export const CreditLedgerEntry = z
  .object({
    kind: z.enum(["charge", "bonus", "reset"]),
    at: Timestamp,
    credits: z
      .number()
      .int()
      .nullable()
      .meta({ description: "Taken (negative, a charge) or given (positive, a bonus); null for a reset" }),
    planName: z.string().nullable().meta({ description: "The pool's plan (bonus and reset); null for a charge" }),
    executionId: Uuid.nullable().meta({ description: "The run behind a charge" }),
    itemName: z.string().nullable().meta({ description: "What ran: the app's (or agent's, flow's) current name" }),
    status: z.string().nullable().meta({ description: "The run's status, for a charge" }),
    reason: z.string().nullable().meta({ description: "Why a bonus was given, when said" }),
    by: z.string().nullable().meta({ description: "Who gave a bonus" }),
  })
  .meta({ id: "CreditLedgerEntry" });
export type CreditLedgerEntry = z.infer<typeof CreditLedgerEntry>;
export const CreditLedgerInput = z.strictObject({
  endUserId: Uuid,
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(100),
});
export type CreditLedgerInput = z.infer<typeof CreditLedgerInput>;
export const CreditLedgerOutput = z.object({ entries: z.array(CreditLedgerEntry) });

export const CreditRequestOutput = z.object({ creditRequest: CreditRequest });
