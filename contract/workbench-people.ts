/**
 * The BFF's people API (server/people/): the people who signed in with OpenID Connect, their
 * own keys, and the audit log of changes made through the workbench. Admins only, except
 * `/api/people/me…`, which is a person's own.
 */
import { z } from 'zod';

export const limitResetSchema = z.enum(['none', 'daily', 'weekly', 'monthly']);
export type LimitReset = z.infer<typeof limitResetSchema>;

/** A model id or a pattern with `*` (`anthropic/*`, `*:free`). */
const modelPatternSchema = z
  .string()
  .regex(/^[\w.:/*@+-]{1,200}$/, 'must be a model id or a pattern such as anthropic/*');

/** The key a person gets at first sign-in (WORKBENCH_MEMBER_KEY_*, or their group's). */
export const memberKeyPolicySchema = z.strictObject({
  kind: z.enum(['allocated_child', 'shared_child']),
  /** Per period when `limit_reset` sets one; null for a shared child. */
  limit_usd: z.number().min(0).max(1_000_000).nullable(),
  limit_reset: limitResetSchema,
  /** Empty: every model the team key may use. */
  allowed_models: z.array(modelPatternSchema).max(200),
});
export type MemberKeyPolicy = z.infer<typeof memberKeyPolicySchema>;

/** `PUT /api/people/policy` (admins): the policy for people's new keys, kept by the workbench. */
export const updatePolicyRequestSchema = memberKeyPolicySchema
  .refine((policy) => policy.kind === 'allocated_child' || policy.limit_usd === null, {
    message: "limit_usd must be null for a shared child: it spends the team key's balance",
    path: ['limit_usd'],
  })
  .refine((policy) => policy.kind === 'shared_child' || policy.limit_usd !== null, {
    message: 'limit_usd: an allocated child needs a budget',
    path: ['limit_usd'],
  });

/** Its answer. */
export const policySchema = z.object({ policy: memberKeyPolicySchema });

/** WORKBENCH_MEMBER_POLICY_FILE: a policy per group, the first group listed that a person is in. */
export const memberPolicyFileSchema = z.strictObject({
  groups: z.record(
    z.string().min(1),
    memberKeyPolicySchema.partial().extend({ kind: memberKeyPolicySchema.shape.kind.optional() }),
  ),
});

/** A person's own key as the gateway reports it (masked; money and period fields). */
export const personKeySchema = z.object({
  id: z.string(),
  kind: z.string(),
  /** Masked. */
  key: z.string(),
  state: z.string(),
  disabled: z.boolean(),
  limit_usd: z.number().nullable(),
  /** This period's consumption for a periodic key. */
  consumption_usd: z.number().nullable(),
  remaining_usd: z.number().nullable(),
  limit_reset: limitResetSchema,
  /** Unix seconds; null for `none` or a gateway that does not report periods yet. */
  resets_at: z.number().nullable(),
  /** Empty: every model. */
  allowed_models: z.array(z.string()),
});
export type PersonKey = z.infer<typeof personKeySchema>;

export const personSchema = z.object({
  /** Stable: derived from the issuer and the person's subject. */
  id: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  groups: z.array(z.string()),
  role: z.enum(['admin', 'member']),
  disabled: z.boolean(),
  /** The profile holding their own key; null when they have none. */
  profile: z.string().nullable(),
  key_id: z.string().nullable(),
  /** Null when they have no key or the gateway did not answer (`key_problem` says why). */
  key: personKeySchema.nullable(),
  key_problem: z.string().nullable(),
  /** Unix milliseconds. */
  created_at: z.number(),
  last_sign_in_at: z.number(),
  /** Unix seconds of their key's newest request; null when none or unknown. */
  last_request_at: z.number().nullable(),
});
export type Person = z.infer<typeof personSchema>;

/** `GET /api/people` (admins). */
export const peopleSchema = z.object({
  people: z.array(personSchema),
  /** WORKBENCH_TEAM_PROFILE: where people's keys are made; null: nobody gets a key. */
  team_profile: z.string().nullable(),
  /** The policy for new keys of people in no policy group. */
  default_policy: memberKeyPolicySchema,
  /** `environment`: WORKBENCH_MEMBER_KEY_*; `workbench`: an admin set it on the People page. */
  policy_source: z.enum(['environment', 'workbench']),
  fetched_at: z.number(),
});
export type People = z.infer<typeof peopleSchema>;

/** `GET /api/people/me`: the signed-in person, as an admin would see them. */
export const mePersonSchema = z.object({ person: personSchema });

/** `PATCH /api/people/:id` (admins): a person's budget, period, models, or whether they may work. */
export const updatePersonRequestSchema = z
  .strictObject({
    limit_usd: z.number().min(0, 'must be 0 or more').max(1_000_000),
    limit_reset: limitResetSchema,
    allowed_models: z.array(modelPatternSchema).max(200),
    disabled: z.boolean(),
  })
  .partial()
  .refine((change) => Object.keys(change).length > 0, {
    message: 'name at least one of limit_usd, limit_reset, allowed_models, disabled',
  });
export type UpdatePersonRequest = z.infer<typeof updatePersonRequestSchema>;

/** `POST /api/people/me/key/hand-over`: the same confirmation as any hand-over. */
export const handOverOwnKeyRequestSchema = z.strictObject({
  show_once: z.literal(true, {
    error: 'must be true: confirm that the key is shown once; the one shown before stops working',
  }),
});

/** Its answer (`Cache-Control: no-store`): a new secret for the person's key; the old one stops. */
export const handedOverOwnKeySchema = z.object({
  key_id: z.string(),
  profile: z.string(),
  secret: z.string().regex(/^sk-\S+$/),
});
export type HandedOverOwnKey = z.infer<typeof handedOverOwnKeySchema>;

/** Who made a change: a person, the access token's session, or the loopback workbench without sign-in. */
export const auditActorSchema = z.object({
  kind: z.enum(['person', 'access_token', 'local', 'system']),
  /** The person's id; null otherwise. */
  id: z.string().nullable(),
  email: z.string().nullable(),
  role: z.enum(['admin', 'member']),
});
export type AuditActor = z.infer<typeof auditActorSchema>;

/** One recorded change; never a key in full (secrets are dropped, keys masked). */
export const auditEntrySchema = z.object({
  id: z.string(),
  /** Unix milliseconds. */
  at: z.number(),
  actor: auditActorSchema,
  /** What was done, e.g. `person.update`, `person.disable`, `key.create`, `key.update`. */
  action: z.string(),
  target: z.object({ type: z.enum(['key', 'person', 'policy', 'webhook']), id: z.string() }),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** `GET /api/audit` (admins): newest first; `?format=csv|json` downloads the whole log. */
export const auditLogSchema = z.object({
  entries: z.array(auditEntrySchema),
  fetched_at: z.number(),
});
export type AuditLog = z.infer<typeof auditLogSchema>;
