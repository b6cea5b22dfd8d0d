/**
 * Key validation: a minimal chat call with a small `max_tokens` on a
 * model the person picks, with its estimated cost shown before it runs.
 */
import { Router } from 'express';
import { z } from 'zod';
import {
  validateKeyRequestSchema,
  type CatalogModel,
  type KeyState,
  type ValidateKeyResult,
  type ValidationEstimate,
} from '../../contract/workbench-api';
import {
  deriveKeyState,
  fetchBalance,
  guidanceFor,
  minimalInference,
  minimalMessages,
} from './balance';
import { pricePerToken, type CatalogService } from '../catalog/catalog';
import { abortOnClientClose } from '../core/client-close';
import type { WorkbenchContext } from '../core/context';
import { adviceForStatus, ApiFailure, parseInput } from '../core/errors';
import { blockedByOf, fetchKeyStatus } from './key-status';
import { redactSecretText } from '../core/secrets';

/**
 * A rough prompt size: about four characters a token plus a few tokens of message framing.
 * Only used for an estimate shown before a call of a few tokens.
 */
export function estimatePromptTokens(messages: Array<{ content: string }>): number {
  const characters = messages.reduce((sum, message) => sum + message.content.length, 0);
  return Math.ceil(characters / 4) + 4 * messages.length + 3;
}

export interface CostEstimate {
  estimatedCostUsd: number;
  /** False when the catalog has no usable price for the model, so the estimate is 0. */
  pricesKnown: boolean;
}

/** prompt estimate × prompt price + max_tokens × completion price; a missing price counts as 0. */
export function minimalCallCost(model: CatalogModel, maxTokens: number): CostEstimate {
  const promptPrice = pricePerToken(model.prompt_price);
  const completionPrice = pricePerToken(model.completion_price);
  const estimatedCostUsd =
    estimatePromptTokens(minimalMessages) * (promptPrice ?? 0) + maxTokens * (completionPrice ?? 0);
  // A call with no output (an embedding) needs no completion price.
  const outputPriced = maxTokens === 0 || completionPrice !== null;
  return { estimatedCostUsd, pricesKnown: promptPrice !== null && outputPriced };
}

/** The estimate of a minimal call as the API answers it (key validation, rotation's verify step). */
export function minimalCallEstimate(model: CatalogModel, maxTokens: number): ValidationEstimate {
  const estimate = minimalCallCost(model, maxTokens);
  return {
    model: model.id,
    max_tokens: maxTokens,
    estimated_cost_usd: estimate.estimatedCostUsd,
    ...(estimate.pricesKnown
      ? {}
      : { note: 'The catalog gives no price for this model; the estimate assumes it is free.' }),
  };
}

/** The cost of a minimal call on a catalog model, or a 400 naming `field` for an unknown one. */
export async function estimateMinimalCallCost(
  catalog: CatalogService,
  modelId: string,
  maxTokens: number,
  field = 'model',
): Promise<CostEstimate> {
  return minimalCallCost(await catalog.find(modelId, field), maxTokens);
}

const estimateQuerySchema = z.object({
  profile: z.string().min(1).optional(),
  model: z.string().min(1),
  max_tokens: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(16))
    .optional(),
});

export function createValidateKeyRouter(context: WorkbenchContext): Router {
  const router = Router();

  router.get('/validate-key/estimate', async (request, response) => {
    const query = parseInput(estimateQuerySchema, request.query, 'query');
    if (query.profile !== undefined) context.profiles.keyOf(query.profile);
    const maxTokens = query.max_tokens ?? 1;
    response.json(minimalCallEstimate(await context.catalog.find(query.model, 'model'), maxTokens));
  });

  router.post('/validate-key', async (request, response) => {
    const input = parseInput(validateKeyRequestSchema, request.body, 'body');
    const key = context.profiles.keyOf(input.profile);
    const maxTokens = input.max_tokens ?? 1;
    const estimate = await estimateMinimalCallCost(context.catalog, input.model, maxTokens);
    const signal = abortOnClientClose(response);
    const { answer, costUsd } = await minimalInference(
      context,
      key,
      input.model,
      maxTokens,
      signal,
    );
    response.locals.cfRay = answer.cfRay;
    const gatewayMessage = (() => {
      const error = (answer.json?.value as { error?: unknown } | undefined)?.error;
      if (typeof error === 'string') return redactSecretText(error, context.profiles.allKeys());
      if (
        error &&
        typeof error === 'object' &&
        typeof (error as { message?: unknown }).message === 'string'
      ) {
        return redactSecretText((error as { message: string }).message, context.profiles.allKeys());
      }
      return null;
    })();
    let valid = false;
    let state: KeyState | null = null;
    let message: string;
    if (answer.status >= 200 && answer.status < 300) {
      valid = true;
      state = 'active';
      message = 'The key works: the gateway served a minimal request with it.';
      if (answer.cfRay) context.profiles.rememberTrace(input.profile, answer.cfRay);
    } else if (answer.status === 402) {
      // Which of the 402 causes it is, the gateway's key status tells (the balance alone cannot
      // show a parent that blocks the key); an active-looking key is then blocked.
      try {
        const [{ balance }, keyStatus] = await Promise.all([
          fetchBalance(context, key, { signal }),
          fetchKeyStatus(context, key, { signal }),
        ]);
        context.profiles.rememberIdentity(input.profile, balance.identity);
        state = keyStatus?.state ?? deriveKeyState(balance);
        if (state === 'active') state = 'blocked';
        const blockedBy = blockedByOf(keyStatus);
        message = `The gateway knows the key but refuses work with it (HTTP 402)${blockedBy ? `: ${blockedBy.summary}` : ''}. ${guidanceFor(state, blockedBy?.reason ?? null, balance.identity)}`;
      } catch (error) {
        if (!(error instanceof ApiFailure)) throw error;
        message = `The gateway refuses work with this key (HTTP 402), and its state could not be read: ${error.detail.message}`;
      }
    } else {
      const type = (answer.json?.value as { type?: unknown } | undefined)?.type;
      const advice =
        adviceForStatus(answer.status, typeof type === 'string' ? type : undefined, {
          model: input.model,
          identity: context.profiles.identityOf(input.profile),
        }) ?? 'The gateway rejected the request; see its message.';
      message = `HTTP ${answer.status}${gatewayMessage ? `: ${gatewayMessage}` : ''}. ${advice}`;
    }
    const result: ValidateKeyResult = {
      valid,
      state,
      message,
      estimated_cost_usd: estimate.estimatedCostUsd,
      cost_usd: costUsd,
      meta: {
        upstream_status: answer.status,
        cf_ray: answer.cfRay,
        ttfb_ms: answer.ttfbMs,
        total_ms: answer.totalMs,
      },
    };
    response.json(result);
  });
  return router;
}
