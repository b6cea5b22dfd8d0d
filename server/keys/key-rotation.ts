/**
 * Rotating a child key from the workbench in four steps (create, repoint the profile, verify,
 * revoke), streamed as NDJSON by `POST /api/profiles/:profile/child-keys/:id/rotation`.
 * Why not the gateway's own rotate: docs/decisions/0013-rotation-in-four-steps.md
 */
import { Router, type Response } from 'express';
import { z } from 'zod';
import type { ManagedKey } from '../../contract/gateway';
import {
  rotationRequestSchema,
  type CatalogModel,
  type RotationDoneLine,
  type RotationLine,
  type RotationStepLine,
  type RotationStepName,
} from '../../contract/workbench-api';
import { minimalInference } from './balance';
import {
  createChildKey,
  revokeChildKey,
  showChildKey,
  type NewChildKey,
} from './child-keys-gateway';
import { childKeyPath, keyParamsSchema, type ChildKeysOptions } from './child-keys-params';
import type { WorkbenchContext } from '../core/context';
import {
  ApiFailure,
  gatewayCallFailure,
  gatewayErrorFailure,
  parseInput,
  validationFailure,
} from '../core/errors';
import { GatewayCallError } from '../core/gateway-client';
import { fetchKeyStatus } from './key-status';
import { KeysStoreError, requireKeysStore, type KeysStore } from './keys-store';
import { redactJson } from '../core/secrets';
import { minimalCallEstimate } from './validate-key';

const estimateQuerySchema = z.object({ model: z.string().min(1).max(300).optional() });

const stepNames: Record<1 | 2 | 3 | 4, RotationStepName> = {
  1: 'create_replacement',
  2: 'update_profile',
  3: 'verify',
  4: 'revoke_old',
};

/** Key states a rotation cannot get through step 3 in, and what to do first. */
const refusedStates: Record<string, string> = {
  revoked: 'it is revoked: there is nothing left to rotate',
  expired:
    'it has expired, and the replacement would take the same expiry: extend its expiry first (Set expiry), then rotate',
  depleted:
    'it has nothing left to spend, so the replacement could not serve the verify request: raise its limit first, then rotate',
  blocked:
    'its parent key (this account key) is disabled, expired or revoked, so no replacement could be used: fix the account key first',
};

/** The verify request's model: the one asked for, else the catalog's cheapest. */
async function verifyModel(context: WorkbenchContext, requested?: string): Promise<CatalogModel> {
  if (requested !== undefined) return context.catalog.find(requested, 'model');
  const cheapest = await context.catalog.cheapest();
  if (!cheapest) {
    throw new ApiFailure(502, {
      message: 'The verify request needs a model, and the gateway’s catalog has none.',
      stage: 'gateway',
    });
  }
  return cheapest;
}

/** A failed call or write, in words: what went wrong and, when known, what to do. */
function failureOf(
  error: unknown,
  context: WorkbenchContext,
): { message: string; advice?: string } {
  const failure =
    error instanceof GatewayCallError ? gatewayCallFailure(error, context.mode) : error;
  if (failure instanceof ApiFailure) {
    return { message: failure.detail.message, advice: failure.detail.advice };
  }
  if (failure instanceof KeysStoreError) return { message: failure.message };
  context.logger.error({ err: error }, 'unexpected error during a key rotation');
  return { message: 'The workbench hit an unexpected error; see its log.' };
}

/**
 * An allocated key's limit less its settled and pending charges, never below 0, exact in nanos.
 * A gateway that does not report `pending_usd` (an older one) is taken at its settled figures.
 */
export function remainingCountingPending(key: ManagedKey): number {
  const nanos = (value: number | null | undefined) => Math.round((value ?? 0) * 1e9);
  const left = nanos(key.limit_usd) - nanos(key.consumption_usd) - nanos(key.pending_usd);
  return Math.max(left, 0) / 1e9;
}

const usd = (value: number) => `$${value.toFixed(value !== 0 && value < 0.01 ? 8 : 2)}`;

interface RotationRun {
  context: WorkbenchContext;
  store: KeysStore;
  accountKey: string;
  /** The profile named in the request; the others holding the same key move with it. */
  holder: string;
  /** Every profile holding the old key (`holder` first): all move to the replacement. */
  holders: string[];
  oldSecret: string;
  old: ManagedKey;
  model: CatalogModel;
  /** Writes one line to the browser (masked). */
  emit(line: RotationLine): void;
  /** Secrets that must be masked in every line, also while no profile holds them. */
  secrets: Set<string>;
}

/** Runs the four steps; every failure is caught and described, so it always ends with a done line. */
export async function runRotation(run: RotationRun): Promise<RotationDoneLine> {
  const { context, store, accountKey, holder, holders, oldSecret, old, model, emit } = run;
  const { profiles } = context;
  const quoted = holders.map((name) => `"${name}"`).join(', ');
  /** "profile "ci"", or "profiles "ci", "ci copy"" when several hold the key. */
  const who = holders.length === 1 ? `profile ${quoted}` : `profiles ${quoted}`;
  const Who = who.charAt(0).toUpperCase() + who.slice(1);
  /** The verb that agrees with `who`. */
  const verb = (one: string, many: string) => (holders.length === 1 ? one : many);
  const on = (key: string) => Object.fromEntries(holders.map((name) => [name, key]));
  const moveTo = (key: string) => {
    for (const name of holders) profiles.set(name, key);
  };
  const step = (
    number: 1 | 2 | 3 | 4,
    status: RotationStepLine['status'],
    detail: string,
    extra: Pick<RotationStepLine, 'cf_ray' | 'cost_usd'> = {},
  ) => emit({ step: number, name: stepNames[number], status, detail, ...extra });
  const oldRef = `${old.id} (${old.key})`;
  const onOld = { id: old.id, key: old.key };
  const allocated = old.kind === 'allocated_child';

  // 1. Create the replacement, with what the old key has really left: its limit less what it
  // spent, settled or not (`remaining_usd` counts only settled charges, which lag by up to
  // GATEWAY_SETTLE_INTERVAL_MS, so it would give back money just spent). Requests still running
  // on the old key are not counted here: they are charged to the old key when they end, even
  // after step 4 (its revocation returns to the account only what it had not spent by then), so
  // for that moment the account pays them on top of the replacement's limit, at most once.
  const limit = allocated ? remainingCountingPending(old) : 0;
  const replacement: NewChildKey = {
    kind: allocated ? 'allocated_child' : 'shared_child',
    name: old.name,
    expires_at: old.expires_at,
    replaces: old.id,
    ...(allocated ? { limit_usd: limit, grace_usd: old.grace_usd ?? 0 } : {}),
  };
  step(
    1,
    'running',
    `Creating a new ${allocated ? 'allocated' : 'shared'} child key named "${old.name}"${allocated ? ` with a limit of ${usd(limit)} (what the old key has left, counting charges not yet settled)` : ''}${old.expires_at !== null ? ' and the same expiry' : ''}.`,
  );
  let created: { secret: string; id: string; key: string };
  try {
    const issued = await createChildKey(context, accountKey, replacement);
    run.secrets.add(issued.secret);
    created = { secret: issued.secret, id: issued.summary.id, key: issued.summary.key };
  } catch (error) {
    const failure = failureOf(error, context);
    step(1, 'failed', failure.message);
    return {
      done: true,
      ok: false,
      failed_step: 1,
      state: `Nothing changed: ${who} still ${verb('uses', 'use')} the old key ${oldRef}, which still works. No replacement was made.`,
      advice: `${failure.advice ? `${failure.advice} ` : ''}Fix what the gateway said${allocated ? ' (an allocated replacement needs the old key’s remaining free on the account key, until the old key is revoked)' : ''}, then rotate again.`,
      profile: holder,
      profile_key: onOld,
      old_key: { id: old.id, revoked: false },
      new_key: null,
    };
  }
  const newRef = `${created.id} (${created.key})`;
  step(
    1,
    'done',
    `Created ${newRef}.${old.disabled ? ' The old key is disabled; the replacement is enabled.' : ''}`,
  );

  /** Revokes the replacement after a failure; false when that fails too. */
  const takeBack = () =>
    revokeChildKey(context, accountKey, created.id).then(
      () => true,
      (error: unknown) => {
        context.logger.warn(
          { key_id: created.id, reason: failureOf(error, context).message },
          'the replacement of a failed rotation could not be revoked',
        );
        return false;
      },
    );
  const replacementFate = (revoked: boolean) =>
    revoked
      ? `The replacement ${newRef} was revoked.`
      : `The replacement ${newRef} could not be revoked and still works.`;
  const revokeAdvice = (revoked: boolean) =>
    revoked ? '' : ` Revoke the replacement ${created.id} (Revoke in the child keys table).`;

  // 2. Update the server-side profile: the file first, so memory never holds what is not kept.
  step(2, 'running', `Pointing ${who} at ${newRef} in ${store.description}.`);
  try {
    await store.putAll(on(created.secret));
  } catch (error) {
    const failure = failureOf(error, context);
    step(2, 'failed', failure.message);
    const revoked = await takeBack();
    return {
      done: true,
      ok: false,
      failed_step: 2,
      state: `${Who} still ${verb('uses', 'use')} the old key ${oldRef}, which still works. ${replacementFate(revoked)}`,
      advice: `Make ${store.location.path} writable by the workbench, then rotate again.${revokeAdvice(revoked)}`,
      profile: holder,
      profile_key: onOld,
      old_key: { id: old.id, revoked: false },
      new_key: { id: created.id, key: created.key, revoked },
    };
  }
  moveTo(created.secret);
  profiles.rememberKeyId(created.secret, created.id);
  profiles.rememberIdentity(holder, old.kind);
  step(
    2,
    'done',
    `${Who} now ${verb('uses', 'use')} ${newRef}; ${store.description} was rewritten.`,
  );

  // 3. Verify one minimal request with the new key.
  const estimate = minimalCallEstimate(model, 1);
  step(
    3,
    'running',
    `Sending one minimal request with the new key: model ${model.id}, max_tokens 1, estimated cost ${usd(estimate.estimated_cost_usd)}.`,
  );
  let verifyFailure: { message: string; advice?: string } | null = null;
  let trace: Pick<RotationStepLine, 'cf_ray' | 'cost_usd'> = {};
  try {
    const { answer, costUsd } = await minimalInference(context, created.secret, model.id, 1);
    trace = { cf_ray: answer.cfRay, cost_usd: costUsd };
    if (answer.status < 200 || answer.status >= 300) {
      const refusal = gatewayErrorFailure(
        answer.status,
        answer.json ? answer.json.value : answer.text,
        answer.cfRay,
        [...profiles.allKeys(), ...run.secrets],
      );
      verifyFailure = {
        message: `HTTP ${answer.status}: ${refusal.detail.message}`,
        advice: refusal.detail.advice,
      };
    } else if (answer.cfRay) {
      profiles.rememberTrace(holder, answer.cfRay);
    }
  } catch (error) {
    verifyFailure = failureOf(error, context);
  }
  if (verifyFailure) {
    step(3, 'failed', verifyFailure.message, trace);
    // Back to the old key, which still works: at once in memory, then in the file.
    moveTo(oldSecret);
    let restored = true;
    try {
      await store.putAll(on(oldSecret));
    } catch (error) {
      restored = false;
      context.logger.error(
        { err: error, profile: holder },
        'a failed rotation could not put the old key back in the keys store',
      );
    }
    if (!restored) {
      // The file still names the replacement: it is kept working, so no restart finds a dead key.
      return {
        done: true,
        ok: false,
        failed_step: 3,
        state: `${Who} ${verb('is', 'are')} back on the old key ${oldRef}, which still works, but ${store.location.path} could not be rewritten and still holds the replacement ${newRef}, which is kept working so the file never points at a dead key.`,
        advice: `Make ${store.location.path} writable by the workbench, then rotate again; revoke the replacement ${created.id} once the file no longer holds it.`,
        profile: holder,
        profile_key: onOld,
        old_key: { id: old.id, revoked: false },
        new_key: { id: created.id, key: created.key, revoked: false },
      };
    }
    const revoked = await takeBack();
    return {
      done: true,
      ok: false,
      failed_step: 3,
      state: `${Who} ${verb('is', 'are')} back on the old key ${oldRef}, which still works. ${replacementFate(revoked)}`,
      advice: `${verifyFailure.advice ? `${verifyFailure.advice} ` : ''}Then rotate again.${revokeAdvice(revoked)}`,
      profile: holder,
      profile_key: onOld,
      old_key: { id: old.id, revoked: false },
      new_key: { id: created.id, key: created.key, revoked },
    };
  }
  step(
    3,
    'done',
    `The gateway served it with the new key${trace.cf_ray ? ` (trace ${trace.cf_ray})` : ''}${typeof trace.cost_usd === 'number' ? `, for ${usd(trace.cost_usd)}` : ''}.`,
    trace,
  );

  // 4. Revoke the old key.
  const onNew = { id: created.id, key: created.key };
  step(4, 'running', `Revoking the old key ${oldRef}.`);
  try {
    await revokeChildKey(context, accountKey, old.id);
  } catch (error) {
    const failure = failureOf(error, context);
    step(4, 'failed', failure.message);
    return {
      done: true,
      ok: false,
      failed_step: 4,
      state: `${Who} ${verb('uses', 'use')} the new, verified key ${newRef}. The old key ${oldRef} still works and must be revoked.`,
      advice: `Revoke the old key ${old.id}: Revoke in the child keys table, or on the gateway’s machine: keys revoke ${old.id}.`,
      profile: holder,
      profile_key: onNew,
      old_key: { id: old.id, revoked: false },
      new_key: { ...onNew, revoked: false },
    };
  }
  step(4, 'done', `The old key ${oldRef} is revoked: the gateway refuses it from now on.`);
  return {
    done: true,
    ok: true,
    failed_step: null,
    state: `${Who} ${verb('uses', 'use')} the new key ${newRef}; the old key ${oldRef} is revoked.`,
    advice: `Nothing to do in the workbench. A program outside it that used the old key needs the new one, kept on the server in ${store.location.path}.`,
    profile: holder,
    profile_key: onNew,
    old_key: { id: old.id, revoked: true },
    new_key: { ...onNew, revoked: false },
  };
}

/** Starts the NDJSON answer; lines are masked, and dropped once the browser has left. */
function ndjsonWriter(
  response: Response,
  knownKeys: () => Iterable<string>,
): (line: RotationLine) => void {
  response.status(200);
  response.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
  response.flushHeaders();
  return (line) => {
    if (response.writableEnded || response.destroyed) return;
    response.write(`${JSON.stringify(redactJson(line, knownKeys()))}\n`);
  };
}

export function createRotationRouter(context: WorkbenchContext, options: ChildKeysOptions): Router {
  const { profiles, logger } = context;
  /** Keys and profiles in a rotation now: a second one waits for the first to end. */
  const busy = new Set<string>();
  const router = Router();

  router.get(`${childKeyPath}/rotation/estimate`, async (request, response) => {
    const { profile } = parseInput(keyParamsSchema, request.params, 'query');
    const query = parseInput(estimateQuerySchema, request.query, 'query');
    profiles.keyOf(profile);
    response.json(minimalCallEstimate(await verifyModel(context, query.model), 1));
  });

  router.post(`${childKeyPath}/rotation`, async (request, response) => {
    const { profile, id } = parseInput(keyParamsSchema, request.params, 'query');
    const input = parseInput(rotationRequestSchema, request.body, 'body');
    const accountKey = profiles.keyOf(profile);
    const oldSecret = profiles.keyOf(input.profile);
    // Refused before anything is created: the replacement must have a place to be kept.
    const store = requireKeysStore(options.keysStore, 'Rotating a key');
    // Every profile holding the same key moves with it: none is left on a key about to stop.
    const holders = [
      input.profile,
      ...profiles
        .names()
        .filter((name) => name !== input.profile && profiles.keyOf(name) === oldSecret),
    ];
    const fixed = holders.find((name) => options.environmentProfiles.includes(name));
    if (fixed !== undefined) {
      throw validationFailure(
        'profile',
        `"${fixed}" holds this key and comes from GATEWAY_API_KEY, which the workbench cannot rewrite: a rotated key would be lost at the next restart. Rotate it where that variable is set`,
        409,
      );
    }
    const locks = [`key:${id}`, ...holders.map((name) => `profile:${name}`)];
    if (locks.some((lock) => busy.has(lock))) {
      throw new ApiFailure(409, {
        message: `A rotation of key ${id} or of profile "${input.profile}" is already running.`,
        stage: 'validation',
        advice: 'Wait for it to end, then look at the child keys table.',
      });
    }
    for (const lock of locks) busy.add(lock);
    try {
      const old = await showChildKey(context, accountKey, id);
      const refusal = refusedStates[old.state];
      if (refusal) {
        throw new ApiFailure(409, {
          message: `Key ${id} cannot be rotated now: ${refusal}.`,
          stage: 'validation',
          type: 'rotation_refused',
        });
      }
      // The profile must hold exactly this key, or the rotation would move the wrong profile.
      const status = await fetchKeyStatus(context, oldSecret);
      if (status?.id !== old.id) {
        throw validationFailure(
          'profile',
          status
            ? `profile "${input.profile}" does not hold key ${id}: choose the profile the child keys table shows for it`
            : `the gateway could not confirm that profile "${input.profile}" holds key ${id} (GET /v1/key)`,
          409,
        );
      }
      profiles.rememberKeyId(oldSecret, old.id);
      const model = await verifyModel(context, input.model);

      // From here on, the answer is the NDJSON stream: every outcome is a line, never an error.
      const secrets = new Set<string>();
      const emit = ndjsonWriter(response, () => [...profiles.allKeys(), ...secrets]);
      // The steps run to the end even if the browser leaves: stopping half-way is what to avoid.
      const done = await runRotation({
        context,
        store,
        accountKey,
        holder: input.profile,
        holders,
        oldSecret,
        old,
        model,
        emit,
        secrets,
      });
      emit(done);
      logger.info(
        {
          moved_profiles: holders,
          old_key_id: old.id,
          new_key_id: done.new_key?.id ?? null,
          ok: done.ok,
          failed_step: done.failed_step,
        },
        'child key rotation',
      );
      response.end();
    } finally {
      for (const lock of locks) busy.delete(lock);
    }
  });

  return router;
}
