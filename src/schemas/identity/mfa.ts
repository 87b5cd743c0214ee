import { z } from "zod";
import { Timestamp, Uuid } from "../common";
import { MAX_MFA_CODE_CHARS } from "../limits";

/** Six digits from the authenticator, or a recovery code (xxxx-xxxx-xxxx-xxxx); spaces are ignored. */
export const MfaCode = z.string().trim().min(6).max(MAX_MFA_CODE_CHARS);
/** The token a password sign-in answered with, when a second step follows. */
export const MfaChallengeToken = z.string().min(1).max(100);

export const MfaChallenge = z.object({
  challenge: z.string(),
  /** verify: give a code; enroll: the organization requires a second factor, set one up first. */
  purpose: z.enum(["verify", "enroll"]),
  expiresAt: Timestamp,
});

/** Signed in (the cookie is set), or a second step to take. */
export const SignInResult = z.union([z.object({ ok: z.literal(true) }), z.object({ mfa: MfaChallenge })]);

export const MfaChallengeInput = z.strictObject({ challenge: MfaChallengeToken });
export type MfaChallengeInput = z.infer<typeof MfaChallengeInput>;
export const MfaSignInInput = z.strictObject({ challenge: MfaChallengeToken, code: MfaCode });
export type MfaSignInInput = z.infer<typeof MfaSignInInput>;
export const MfaCodeInput = z.strictObject({ code: MfaCode });
export type MfaCodeInput = z.infer<typeof MfaCodeInput>;

export const TotpEnrollment = z.object({ secret: z.string(), otpauthUri: z.string(), qrCode: z.string() });
/** Shown once, when they are made. */
export const RecoveryCodes = z.object({ recoveryCodes: z.array(z.string()) });

export const MfaStatus = z.object({
  enrolled: z.boolean(),
  enrolledAt: Timestamp.nullable(),
  recoveryCodesLeft: z.number().int(),
  required: z.boolean(),
});

export const MfaResetResult = z.object({ member: z.object({ id: Uuid, email: z.string() }), removed: z.boolean() });
