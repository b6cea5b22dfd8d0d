/**
 * `GET /api/balance?profile=`: the gateway's balance for a profile's key, the key state, and the
 * guidance for that state.
 *
 * The state comes from the gateway's `GET /v1/key`, called beside the balance: it reports
 * `blocked` (a child refused because its parent is disabled, expired or revoked), which the
 * balance does not report as its own field, at no cost. A gateway without
 * that route leaves the state to the balance alone; then `POST /api/balance/probe` can still tell
 * `blocked` with a minimal inference call (`max_tokens: 1` on the cheapest catalog model, or the
 * body's `model`), a 402 from it meaning `blocked`. The probe costs a tiny amount, so it never
 * runs by default, and never on a GET: a cross-site `<img>` could send a GET, while a JSON POST
 * passes the same-origin guard first.
 */
import { Router, type Response } from 'express';
import { z } from 'zod';
import { balanceSchema, type Balance, type KeyKind } from '../../contract/gateway';
import {
  balanceProbeRequestSchema,
  type BalanceView,
  type KeyState,
} from '../../contract/workbench-api';
import { abortOnClientClose } from '../core/client-close';
import type { WorkbenchContext } from '../core/context';
import {
  ApiFailure,
  gatewayCallFailure,
  parseInput,
  readGatewayAnswer,
  stoppedKeyFix,
} from '../core/errors';
import { GatewayCallError, type CollectedResponse } from '../core/gateway-client';
import { blockedByOf, fetchKeyStatus } from './key-status';
import { redactJson } from '../core/secrets';

/** The key state the balance shows. Disabled first: it is the deliberate decision. */
export function deriveKeyState(balance: Balance): KeyState {
  if (balance.disabled) return 'disabled';
  if (balance.expired) return 'expired';
  if (balance.remaining_usd <= 0) return 'depleted';
  return 'active';
}

/** What to do about a key its parent blocks, per reason. */
const blockedGuidance: Record<string, string> = {
  parent_disabled:
    "This key's parent key is disabled, so the gateway refuses this key's requests with HTTP 402 although its own figures look usable. Ask the parent key's owner to enable it (gateway command line: keys enable PARENT_ID), or use another key. Do not retry unchanged.",
  parent_expired:
    "This key's parent key has expired, so the gateway refuses this key's requests with HTTP 402 although its own figures look usable. Ask the parent key's owner to extend its expiry (keys set PARENT_ID --expires-at …), or use another key. Do not retry unchanged.",
  parent_revoked:
    "This key's parent key was revoked, so this key can never run requests again (HTTP 402). Ask for a new key.",
  parent_missing:
    "This key's parent key no longer exists, so this key can never run requests again (HTTP 402). Ask for a new key.",
  parent_depleted:
    "The parent key's balance, which this shared child key spends, is used up: requests return HTTP 402. Raise the parent key's limit or recharge it, then try again.",
};

/**
 * The guidance per state, in plain words; for a key its parent blocks, the reason the
 * gateway gave. A shared child's "parent's balance" is said once, on the card, not here.
 */
export function guidanceFor(
  state: KeyState,
  blockedReason: string | null = null,
  identity: KeyKind | null = null,
): string {
  if (blockedReason && blockedGuidance[blockedReason]) return blockedGuidance[blockedReason];
  switch (state) {
    case 'active':
      return 'Requests are served while balance remains. Consumption settles asynchronously and can lag recent requests by several minutes; the grace amount is an admission allowance, not spendable balance.';
    case 'expired':
      return `The key has expired: requests return HTTP 402. Do not retry unchanged. ${stoppedKeyFix('expired', identity)}`;
    case 'disabled':
      return `The key is disabled: requests return HTTP 402. Do not retry unchanged. ${stoppedKeyFix('disabled', identity)}`;
    case 'depleted':
      return 'No remaining balance: requests return HTTP 402, on every model. The grace amount is not spendable; raise the limit or recharge before retrying.';
    case 'blocked':
      return 'The balance looks usable, but the gateway refuses this key (HTTP 402): for a child key, its parent key is disabled, expired or revoked. Check the parent key. Do not retry unchanged.';
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
    if (error instanceof GatewayCallError) throw gatewayCallFailure(error, context.mode);
    throw error;
  }
  const parsed = readGatewayAnswer(
    answer,
    balanceSchema,
    'The gateway answered the balance request, but not with a balance (remaining, limit and usage).',
    context.profiles.allKeys(),
  );
  return { balance: parsed, cfRay: answer.cfRay };
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
  // When one of the two calls fails, the other is not waited for: it stops too.
  const both = new AbortController();
  signal.addEventListener('abort', () => both.abort(), { once: true });
  const stopOther = (error: unknown): never => {
    both.abort();
    throw error;
  };
  const [{ balance, cfRay }, keyStatus] = await Promise.all([
    fetchBalance(context, key, { signal: both.signal }).catch(stopOther),
    fetchKeyStatus(context, key, { signal: both.signal }).catch(stopOther),
  ]);
  context.profiles.rememberIdentity(profile, balance.identity);
  response.locals.cfRay = cfRay;
  // The gateway's own word wins; the balance decides only when the gateway has no /v1/key.
  let state: KeyState = keyStatus?.state ?? deriveKeyState(balance);
  const blockedBy = blockedByOf(keyStatus);
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
    guidance: guidanceFor(state, blockedBy?.reason ?? null, balance.identity),
    cf_ray: cfRay,
    fetched_at: Date.now(),
    blocked_by: blockedBy,
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
