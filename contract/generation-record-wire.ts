/**
 * The generation record's fields as zod schemas: the gateway's wire (`GET /v1/generation`,
 * contract/gateway.ts) and the workbench's token counts (contract/workbench-api.ts). Names come
 * from the definition (generation-record.ts); a token count needs nothing here, and any other field
 * sent needs its schema in `wireSchemas`, which the compiler holds to the definition.
 */
import { z } from 'zod';
import {
  generationFieldList,
  type UsageName,
  type UsageWireName,
  usageWireNames,
  type WireFieldName,
  type WireNameOf,
} from './generation-record';
import { translationReportSchema } from './translation-report';

/** Every token count, as the gateway sends it: a reader of an older gateway may find none. */
const usageSchema = z.number().optional();

/** The schema of each field sent that is not a token count. */
const wireSchemas = {
  id: z.string(),
  model: z.string(),
  requested_model: z.string().nullable().optional(),
  provider: z.string(),
  upstream_model: z.string().optional(),
  form: z.string(),
  streamed: z.boolean(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  cost_usd: z.number(),
  finish_reason: z.string().nullable(),
  /** `completed`, or `ended_early` when the client left or the provider failed mid-answer. */
  outcome: z.string(),
  settlement: z.enum(['pending', 'settled']),
  created_at: z.number(),
  settled_at: z.number().nullable(),
  latency_ms: z.number(),
  /** The time the gateway itself added (`x-gateway-overhead-ms`); null on older records. */
  overhead_ms: z.number().nullable().optional(),
  /** The agent session the request belongs to; null when the client named none. */
  session_id: z.string().nullable().optional(),
  /** The batch the request was a line of; null for an interactive request. */
  batch_id: z.string().nullable().optional(),
  attempts: z
    .array(
      z.looseObject({
        provider: z.string(),
        /**
         * The HTTP status, or how the attempt failed (`connect`, `first_byte_timeout`…), or why the
         * provider was not tried (`cooling_down`, `ignored`, `not_in_only`, `over_max_price`,
         * `no_fallbacks`).
         */
        status: z.union([z.number(), z.string()]),
        latency_ms: z.number(),
        /** The model this attempt was for, when several could answer. */
        model: z.string().optional(),
      }),
    )
    .optional(),
  usage_estimated: z.boolean().optional(),
  charge_capped: z.boolean().optional(),
  translation: translationReportSchema.nullable().optional(),
} satisfies { [K in Exclude<WireFieldName, UsageName> as WireNameOf<K>]: z.ZodType };

type WireSchemas = typeof wireSchemas;

/** The record's fields on the gateway's wire, as a zod shape, in the definition's order. */
export const generationWireShape = Object.fromEntries(
  generationFieldList.flatMap(([, spec]) =>
    spec.wire
      ? [
          [
            spec.wire.name,
            spec.usage ? usageSchema : wireSchemas[spec.wire.name as keyof WireSchemas],
          ],
        ]
      : [],
  ),
) as WireSchemas & { [N in UsageWireName]: typeof usageSchema };

/** The record's token counts as the workbench's API sends them: always there, 0 when absent. */
export const recordUsageShape = Object.fromEntries(
  usageWireNames.map((name) => [name, z.number()]),
) as { [N in UsageWireName]: z.ZodNumber };
