// Portals: their look and settings (console and REST), and the portal door's own procedures
// for end users (sign-in by email code, their apps, conversations and credits).
import { z } from "zod";
import {
  emailAddress,
  ListQuery,
  NameQuery,
  nameText,
  NextCursor,
  OkOutput,
  plainText,
  Timestamp,
  Uuid,
} from "../common";
import { MAX_GREETING_CHARS, MAX_PORTAL_SLUG_CHARS, MAX_URL_CHARS } from "../limits";
import { CreditRequest, CreditRequestMessage } from "../provisioning/credits";
import { Citation, FeedbackBody } from "../runs/runtime";

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;
/** Path segments the portal's routes use next to `/api/portal/<slug>`. */
export const RESERVED_SLUGS = ["trpc"];

export const PortalSlug = z
  .string()
  .trim()
  .toLowerCase()
  .min(2)
  .max(MAX_PORTAL_SLUG_CHARS)
  .regex(SLUG_PATTERN, "Use 2 to 48 lowercase letters, digits and dashes, not starting or ending with a dash")
  .refine((slug) => !RESERVED_SLUGS.includes(slug), "This slug is reserved")
  .meta({ description: "Unique across the installation; the portal's address is `/p/<slug>`" });

export const PortalGreeting = plainText(MAX_GREETING_CHARS);
export const PortalLogoUrl = z
  .url({ protocol: /^https?$/ })
  .max(MAX_URL_CHARS)
  .meta({ description: "An http(s) image URL" });
export const PortalAccentColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, "Use a colour as #rrggbb")
  .transform((value) => value.toLowerCase())
  .meta({ description: "`#rrggbb`" });
export const FeaturedAppIds = z
  .array(Uuid)
  .max(50)
  .meta({ description: "Apps listed first in the portal, in this order" });

export const PORTAL_SIGN_IN = ["email_code", "sso", "both"] as const;
export const PortalSignIn = z.enum(PORTAL_SIGN_IN);
export type PortalSignIn = z.infer<typeof PortalSignIn>;

/** The languages the portal's own text is written in (src/components/portal/i18n/). */
export const PORTAL_LANGUAGES = ["en", "fr", "de"] as const;
export const PortalLanguage = z.enum(PORTAL_LANGUAGES).meta({
  description:
    "A language the portal's own text is written in: `en`, `fr` or `de`. End users see the portal in their browser's language when it is one of these, else in this one",
});
export type PortalLanguage = z.infer<typeof PortalLanguage>;

/** Origins that may embed the portal's chat: at most this many. */
export const MAX_EMBED_ORIGINS = 20;

/** A web origin, `scheme://host[:port]` and nothing after it; answered in its normal form (`URL.origin`). */
export const EmbedOrigin = z
  .string()
  .trim()
  .max(300)
  .refine((value) => /^https?:\/\/[^/?#@\s]+$/i.test(value) && URL.canParse(value), {
    message: "Use an origin: http(s)://host[:port], without a path, query or credentials",
  })
  .transform((value) => new URL(value).origin)
  .meta({ description: "`https://host[:port]` (http for loopback tests), without a path" });

export const PortalEmbedSettings = z
  .object({
    enabled: z.boolean().meta({ description: "Whether pages of `allowedOrigins` may embed the portal's chat" }),
    allowedOrigins: z.array(z.string()).meta({ description: "Origins that may frame the chat and exchange tokens" }),
    hasSecret: z
      .boolean()
      .meta({ description: "Whether an embed secret was created (`POST /portals/{id}/embed-secret`)" }),
  })
  .meta({ id: "PortalEmbedSettings" });

export const UpdatePortalEmbedInput = z.strictObject({
  enabled: z.boolean().optional(),
  allowedOrigins: z
    .array(EmbedOrigin)
    .max(MAX_EMBED_ORIGINS)
    .optional()
    .meta({ description: `At most ${MAX_EMBED_ORIGINS} origins, each \`scheme://host[:port]\`` }),
});

export const Portal = z
  .object({
    id: Uuid,
    name: z.string(),
    slug: z.string(),
    greeting: z.string(),
    logoUrl: z.string().nullable(),
    accentColor: z.string().nullable(),
    featuredAppIds: z.array(Uuid),
    signIn: PortalSignIn.meta({
      description: "How end users sign in: an email code, the organization's single sign-on, or both",
    }),
    defaultLanguage: PortalLanguage,
    embed: PortalEmbedSettings,
    provisionPlanId: Uuid.nullable().meta({
      description: "The plan an unknown email of an embed token is provisioned on; null refuses unknown emails",
    }),
    createdAt: Timestamp,
  })
  .meta({ id: "Portal" });
export type Portal = z.infer<typeof Portal>;

/** A portal as the console shows it, with the path of its link. */
export const PortalDetail = Portal.extend({ url: z.string().meta({ description: "`/p/<slug>` on this host" }) }).meta({
  id: "PortalDetail",
});
export type PortalDetail = z.infer<typeof PortalDetail>;

export const ListPortalsInput = ListQuery.extend({ q: NameQuery });
export const ListPortalsOutput = z.object({ portals: z.array(Portal), nextCursor: NextCursor });

export const CreatePortalInput = z.strictObject({
  name: nameText,
  slug: PortalSlug.optional().meta({ description: "Generated from the name when not given" }),
  greeting: PortalGreeting.optional(),
  logoUrl: PortalLogoUrl.nullable().optional(),
  accentColor: PortalAccentColor.nullable().optional(),
  featuredAppIds: FeaturedAppIds.optional(),
  defaultLanguage: PortalLanguage.optional().meta({ description: "`en` when not given" }),
});
export type CreatePortalInput = z.infer<typeof CreatePortalInput>;

export const UpdatePortalInput = z.strictObject({
  id: Uuid,
  name: nameText.optional(),
  slug: PortalSlug.optional(),
  greeting: PortalGreeting.optional(),
  logoUrl: PortalLogoUrl.nullable().optional(),
  accentColor: PortalAccentColor.nullable().optional(),
  featuredAppIds: FeaturedAppIds.optional(),
  signIn: PortalSignIn.optional(),
  defaultLanguage: PortalLanguage.optional(),
  embed: UpdatePortalEmbedInput.optional(),
  provisionPlanId: Uuid.nullable().optional(),
});
export type UpdatePortalInput = z.infer<typeof UpdatePortalInput>;

export const PortalIdInput = z.strictObject({ id: Uuid });
export const EmbedSecretOutput = z.object({
  secret: z.string().meta({ description: "The HS256 signing secret for embed tokens; shown this once" }),
});

/** The embed frame's exchange: the token the page handed over, and that page's origin as the frame saw it. */
export const EmbedSessionInput = z.strictObject({
  token: z.string().min(1).max(4096),
  parentOrigin: z.string().max(300).optional(),
});
/** The body of the portal's export download from a mailed link: the token the link carried. */
export const OwnExportInput = z.strictObject({ link: z.string().min(1).max(100) });
export const MailExportInput = z.strictObject({
  portal: z.string().trim().min(1).max(64),
  /** The language of the page asking, for the mail; the portal's default when absent. */
  language: PortalLanguage.optional(),
});
export const MailExportOutput = z.object({ sent: z.literal(true), expiresInSeconds: z.number().int() });

export const EmbedSessionOutput = z.object({
  session: z.string().meta({ description: "Sent as `Authorization: Bearer <session>` by the embed frame" }),
  expiresAt: Timestamp,
  endUser: z.object({ id: Uuid, email: z.string(), fullName: z.string() }),
});

/** The launcher's look on an embedding page: the portal's accent and a readable text colour on it. */
export const EmbedLookOutput = z.object({
  name: z.string(),
  accent: z.string(),
  accentText: z.string(),
});

// ---- Console: the outbox and an end user's effective access ----

export const OutboxMessage = z
  .object({
    id: Uuid,
    to: z.string(),
    subject: z.string(),
    text: z.string(),
    /** The text is not the reader's to see: its link grants what only owners may grant. */
    withheld: z.boolean(),
    createdAt: Timestamp,
  })
  .meta({ id: "OutboxMessage" });
export type OutboxMessage = z.infer<typeof OutboxMessage>;
export const ListMailInput = ListQuery;
export const ListMailOutput = z.object({ messages: z.array(OutboxMessage), nextCursor: NextCursor });

export const EffectiveAccessInput = z.strictObject({ endUserId: Uuid });
const NamedRef = z.object({ id: Uuid, name: z.string() });
/** One reason an end user can use an app: a grant of theirs, of a group they are in, or of their plan's group. */
export const AccessReason = z.object({
  grantId: Uuid,
  holder: z.enum(["user", "group", "plan"]),
  name: z.string().meta({ description: "The group's or plan's name; empty for the end user's own grant" }),
  groupId: Uuid.nullable(),
  portal: NamedRef.nullable().meta({ description: "The portal this reason opens the app in; null for every portal" }),
});
export const EffectiveAccessOutput = z.object({
  accessMode: z.enum(["grants", "groups"]),
  revoked: z.boolean(),
  /** Suspended by the organization's directory (SCIM): no access until it is active again. */
  suspended: z.boolean(),
  plans: z.array(
    z.object({
      subscriptionId: Uuid,
      tierPlanId: Uuid,
      name: z.string(),
      status: z.enum(["active", "canceled"]),
      creditAllowance: z.number().int(),
      bonusCredits: z.number().int(),
      creditsUsed: z.number().int(),
      creditsLeft: z.number().int(),
      creditsResetAt: Timestamp,
      groupId: Uuid.nullable().meta({ description: "The plan's own group, which its active subscribers are in" }),
      allowedModels: z
        .array(z.string())
        .nullable()
        .meta({ description: "The models the plan lets this end user's runs call; null: every model" }),
    }),
  ),
  groups: z.array(
    NamedRef.extend({
      planName: z.string().nullable().meta({ description: "Set when the membership comes from a plan" }),
    }),
  ),
  grants: z.array(
    z.object({
      id: Uuid,
      appId: Uuid,
      appName: z.string().meta({ description: "Empty when the app no longer exists" }),
      holder: z.enum(["user", "group", "plan"]),
      holderName: z.string(),
      groupId: Uuid.nullable(),
      portal: NamedRef.nullable(),
      expiresAt: Timestamp.nullable(),
      status: z.enum(["active", "expired", "unpublished", "unused"]).meta({
        description:
          "`unused`: in force but opening nothing (a personal grant, or a group not admitted to a portal, where access is managed with groups)",
      }),
    }),
  ),
  portals: z
    .array(NamedRef.extend({ apps: z.array(z.string()) }))
    .meta({ description: "The portals where the end user can use at least one app, with those apps' names" }),
  apps: z.array(
    z.object({
      appId: Uuid,
      appName: z.string(),
      portals: z.union([z.array(NamedRef), z.literal("all")]).meta({
        description:
          "The portals where the end user can use the app, or `all` when a grant names no portal (grants mode)",
      }),
      via: z.array(AccessReason),
    }),
  ),
});
export type EffectiveAccessOutput = z.infer<typeof EffectiveAccessOutput>;

// ---- The portal door (end users) ----

export const PortalRef = z.string().trim().min(1).max(64).meta({ description: "The portal's id or slug" });

export const PortalInput = z.strictObject({ portal: PortalRef });
export const PortalEmail = emailAddress().toLowerCase();
export const CancelPortalRunInput = z.strictObject({ portal: PortalRef, appId: Uuid, executionId: Uuid });
export const CancelPortalRunOutput = z.object({
  status: z
    .string()
    .meta({ description: "The execution's status: canceled, or how it ended before the cancel arrived" }),
});
export const RequestCreditsInput = z.strictObject({ portal: PortalRef, message: CreditRequestMessage.optional() });
export const RequestCreditsOutput = z.object({ creditRequest: CreditRequest });
export const RequestCodeInput = z.strictObject({
  portal: PortalRef,
  email: PortalEmail,
  /** The language of the page asking, for the mail; the portal's default when absent. */
  language: PortalLanguage.optional(),
});
export const RequestCodeOutput = z.object({ sent: z.literal(true), expiresInSeconds: z.number().int() });
export const SignInCode = z
  .string()
  .trim()
  .regex(/^\d{6}$/, "The code is 6 digits");
export const VerifyCodeInput = z.strictObject({ portal: PortalRef, email: PortalEmail, code: SignInCode });

export const PortalEndUser = z.object({ id: Uuid, email: z.string(), fullName: z.string() });
export type PortalEndUser = z.infer<typeof PortalEndUser>;
export const VerifyCodeOutput = z.object({ endUser: PortalEndUser });
export const SignOutOutput = OkOutput;

export const PublicPortal = z.object({
  id: Uuid,
  slug: z.string(),
  name: z.string(),
  greeting: z.string(),
  logoUrl: z.string().nullable(),
  accentColor: z.string().nullable(),
  organizationName: z.string(),
  signIn: PortalSignIn,
  defaultLanguage: PortalLanguage,
  /** "Continue with <ssoName>" when the portal allows single sign-on and the organization has a connection; null otherwise. */
  ssoName: z.string().nullable(),
});
export type PublicPortal = z.infer<typeof PublicPortal>;
export const GetPortalOutput = z.object({ portal: PublicPortal });

export const CreditPool = z.object({
  subscriptionId: Uuid,
  planName: z.string(),
  creditAllowance: z.number().int(),
  bonusCredits: z.number().int(),
  creditsUsed: z.number().int(),
  creditsLeft: z.number().int(),
  creditsResetAt: Timestamp,
  /** What the plan says about itself: shown beside its credits (the price is shown, not charged). */
  planDescription: z.string(),
  planFeatures: z.array(z.string()),
  priceAmount: z.number().int().nullable(),
  priceCurrency: z.string(),
  priceInterval: z.enum(["month", "year"]),
});
export type CreditPool = z.infer<typeof CreditPool>;
/** Bonus credits given since the end user last dismissed the notice. */
export const BonusNotice = z.object({
  credits: z.number().int(),
  planName: z.string(),
  reason: z.string().nullable(),
  at: Timestamp,
});
export type BonusNotice = z.infer<typeof BonusNotice>;
export const MeOutput = z.object({
  endUser: PortalEndUser,
  credits: z.object({ left: z.number().int(), plans: z.array(CreditPool) }),
  bonuses: z.array(BonusNotice),
});
export type MeOutput = z.infer<typeof MeOutput>;

export const PortalApp = z.object({
  id: Uuid,
  name: z.string(),
  description: z.string(),
  greeting: z.string(),
  conversationStarters: z.array(z.string()),
});
export type PortalApp = z.infer<typeof PortalApp>;
export const ListPortalAppsOutput = z.object({ apps: z.array(PortalApp) });

export const ListPortalConversationsInput = ListQuery.extend({
  portal: PortalRef,
  q: plainText(200).optional().meta({ description: "Matches the title or a message's text, case-insensitive" }),
  appId: Uuid.optional(),
});
export const RenamePortalConversationInput = z.strictObject({
  portal: PortalRef,
  conversationId: Uuid,
  title: plainText(200).refine((t) => t.trim() !== "", "Required"),
});
export const DeletePortalConversationInput = z.strictObject({ portal: PortalRef, conversationId: Uuid });
export const PortalConversationSummary = z.object({
  id: Uuid,
  appId: Uuid,
  appName: z.string(),
  title: z.string(),
  updatedAt: Timestamp,
});
export const ListPortalConversationsOutput = z.object({
  conversations: z.array(PortalConversationSummary),
  nextCursor: NextCursor,
});

export const PortalFeedbackInput = FeedbackBody.extend({ portal: PortalRef, messageId: Uuid });

export const RenamePortalConversationOutput = z.object({ conversation: PortalConversationSummary });
export const DeletePortalConversationOutput = OkOutput;

export const GetPortalConversationInput = z.strictObject({ portal: PortalRef, conversationId: Uuid });
/** A file a sent turn carried, as the transcript shows it. */
export const MessageAttachment = z.object({
  id: Uuid,
  name: z.string(),
  format: z.string(),
  sizeBytes: z.number().int(),
});
export const PortalMessage = z.object({
  id: Uuid,
  role: z.enum(["user", "assistant"]),
  content: z.string(),
  citations: z.array(Citation),
  credits: z
    .number()
    .int()
    .nullable()
    .meta({ description: "What the answer's turn cost the end user, in credits; null for a question" }),
  attachments: z.array(MessageAttachment),
  createdAt: Timestamp,
});
export const GetPortalFileInput = z.strictObject({ portal: PortalRef, fileId: z.string().max(100) });
export const GetPortalConversationOutput = z.object({
  conversation: z.object({
    id: Uuid,
    appId: Uuid,
    appName: z.string(),
    title: z.string(),
    messages: z.array(PortalMessage),
  }),
});

export const PortalOutput = z.object({ portal: Portal });
export const PortalDetailOutput = z.object({ portal: PortalDetail });
