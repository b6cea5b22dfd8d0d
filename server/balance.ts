/**
 * `GET /api/balance?profile=`: the gateway's balance for a profile's key, the key state derived
 * from it, and the spec's guidance for that state.
 *
 * `blocked` (an allocated child whose parent is disabled or expired: spec 3, "not reported as
 * its own field") cannot be seen in the balance. It is detected only by `POST
 * /api/balance/probe`: then, if the balance looks active, a minimal inference call (`max_tokens:
 * 1` on the cheapest catalog model, or the body's `model`) is made, and a 402 from it means
 * `blocked`. The probe costs a tiny amount, so it never runs by default, and never on a GET: a
 * cross-site `<img>` could send a GET, while a JSON POST passes the same-origin guard first. An
 * invalid-body call is not used: whether the gateway rejects it at admission or at validation
 * first is not specified.
 */
import { Router, type Response } from 'express';
import { z } from 'zod';
import { balanceSchema, type Balance } from '../contract/gateway';
import {
  balanceProbeRequestSchema,
  type BalanceView,
  type KeyState,
} from '../contract/workbench-api';
import { abortOnClientClose } from './client-close';
import type { WorkbenchContext } from './context';
import {
  ApiFailure,
  gatewayCallFailure,
  gatewayErrorFailure,
  gatewayShapeFailure,
  parseInput,
} from './errors';
import { GatewayCallError, type CollectedResponse } from './gateway-client';
import { redactJson } from './secrets';

/** The key state the balance shows (spec 3). Disabled first: it is the deliberate decision. */
export function deriveKeyState(balance: Balance): KeyState {
  if (balance.disabled) return 'disabled';
  if (balance.expired) return 'expired';
  if (balance.remaining_usd <= 0) return 'depleted';
  return 'active';
}

/** The spec's guidance per state, in plain words. */
export function guidanceFor(state: KeyState, balance: Balance | null): string {
  const shared =
    balance?.identity === 'shared_child'
      ? " This is a shared child key: it reports its parent key's balance."
      : '';
  switch (state) {
    case 'active':
      return `Requests are served while balance remains. Consumption settles asynchronously and can lag recent requests by several minutes; the grace amount is an admission allowance, not spendable balance.${shared}`;
    case 'expired':
      return `The key has expired: requests return HTTP 402. Do not retry unchanged; create a replacement key, update the server secret, verify one request, then revoke the old key.${shared}`;
    case 'disabled':
      return `The key is disabled: requests return HTTP 402. Do not retry unchanged; re-enable it in key management or use another key.${shared}`;
    case 'depleted':
      return `No remaining balance: requests return HTTP 402. The grace amount is not spendable; raise the limit or recharge before retrying.${shared}`;
    case 'blocked':
      return 'The balance looks active, but inference answers HTTP 402. For an allocated child key this means its parent key is disabled or expired (the balance does not report it): check the parent key. Do not retry unchanged.';
    default:
      return 'Unknown state.';
  }
}

/**
 * Fetches and parses `GET /v1/balance` for a key, or throws the matching API error (an
 * ApiFailure even for a gateway that is down: key validation reports its message).
 */
export async function fetchBalance(
  context: WorkbenchContext,
  key: string,
  options: { signal?: AbortSignal; firstByteTimeoutMs?: number } = {},
): Promise<{ balance: Balance; cfRay: string | null }> {
  let answer: CollectedResponse;
  try {
    answer = await context.gateway.collect({ method: 'GET', path: '/v1/balance', key, ...options });
  } catch (error) {
    if (error instanceof GatewayCallError) throw gatewayCallFailure(error);
    throw error;
  }
  if (answer.status < 200 || answer.status >= 300) {
    throw gatewayErrorFailure(
      answer.status,
      answer.json ? answer.json.value : answer.text,
      answer.cfRay,
      context.profiles.allKeys(),
    );
  }
  const parsed = answer.json ? balanceSchema.safeParse(answer.json.value) : null;
  if (!parsed?.success) {
    throw gatewayShapeFailure(
      'The gateway balance answer does not have the balance shape of the spec (2.1).',
      answer.status,
      answer.cfRay,
    );
  }
  return { balance: parsed.data, cfRay: answer.cfRay };
}

/** A minimal `max_tokens: 1` chat call; returns its status, trace id and cost. */
export async function minimalInference(
  context: WorkbenchContext,
  key: string,
  model: string,
  maxTokens: number,
  signal?: AbortSignal,
): Promise<{ answer: CollectedResponse; costUsd: number | null }> {
  const answer = await context.gateway.collect({
    method: 'POST',
    path: '/v1/chat/completions',
    key,
    json: { model, messages: minimalMessages, max_tokens: maxTokens },
    signal,
  });
  const usage = (answer.json?.value as { usage?: { cost?: unknown } } | undefined)?.usage;
  return { answer, costUsd: typeof usage?.cost === 'number' ? usage.cost : null };
}

/** The prompt of every minimal call (key validation, probes, checks). */
export const minimalMessages = [{ role: 'user', content: 'Reply with the single word OK.' }];

const balanceQuerySchema = z.object({
  profile: z.string().min(1),
  // The probe spends money, so a GET (which any page can send with an `<img>`) no longer runs it.
  probe: z
    .never({
      error:
        'the probe moved to POST /api/balance/probe with a JSON body {"profile", "model"}: it runs inference, which costs money',
    })
    .optional(),
});

/**
 * The balance view of a profile; with `probe`, a minimal inference call too when the balance
 * looks active. Sets the request log's trace id.
 */
async function balanceView(
  context: WorkbenchContext,
  response: Response,
  profile: string,
  probeRequest: { model?: string } | null,
): Promise<BalanceView> {
  const key = context.profiles.keyOf(profile);
  const signal = abortOnClientClose(response);
  const { balance, cfRay } = await fetchBalance(context, key, { signal });
  context.profiles.rememberIdentity(profile, balance.identity);
  response.locals.cfRay = cfRay;
  let state = deriveKeyState(balance);
  let probe: BalanceView['probe'];
  if (probeRequest && state === 'active') {
    // A model the catalog does not have is a 400 naming `model`, as on the other routes.
    const model = probeRequest.model
      ? (await context.catalog.find(probeRequest.model, 'model')).id
      : (await context.catalog.cheapest())?.id;
    if (!model) {
      throw new ApiFailure(502, {
        message: 'The probe needs a model, and the catalog has none.',
        stage: 'gateway',
      });
    }
    const { answer, costUsd } = await minimalInference(context, key, model, 1, signal);
    probe = { model, upstream_status: answer.status, cf_ray: answer.cfRay, cost_usd: costUsd };
    if (answer.status === 402) state = 'blocked';
  }
  return {
    profile,
    // The gateway masks the key itself; masking again guards against one that does not.
    balance: redactJson(balance, context.profiles.allKeys()) as Balance,
    state,
    guidance: guidanceFor(state, balance),
    cf_ray: cfRay,
    fetched_at: Date.now(),
    ...(probe ? { probe } : {}),
  };
}

export function createBalanceRouter(context: WorkbenchContext): Router {
  const router = Router();
  router.get('/balance', async (request, response) => {
    const query = parseInput(balanceQuerySchema, request.query, 'query');
    response.json(await balanceView(context, response, query.profile, null));
  });
  router.post('/balance/probe', async (request, response) => {
    const input = parseInput(balanceProbeRequestSchema, request.body, 'body');
    response.json(await balanceView(context, response, input.profile, { model: input.model }));
  });
  return router;
}
