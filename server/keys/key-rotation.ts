/**
 * Rotating a child key from the workbench in four steps (create, repoint the profile, verify,
 * revoke), streamed as NDJSON by `POST /api/profiles/:profile/child-keys/:id/rotation`.
 * Why not the gateway's own rotate: docs/decisions/0013-rotation-in-four-steps.md
 */
import { auditAfterLocal } from '../people/audit';
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
import {
  noVerifyModelText,
  refusedStates,
  rotationText,
  unexpectedErrorText,
  type RotationOutcomeText,
  type RotationText,
} from './key-rotation-text';
import { minimalCallEstimate } from './validate-key';

const estimateQuerySchema = z.object({ model: z.string().min(1).max(300).optional() });

const stepNames: Record<1 | 2 | 3 | 4, RotationStepName> = {
  1: 'create_replacement',
  2: 'update_profile',
  3: 'verify',
  4: 'revoke_old',
};

/** The verify request's model: the one asked for, else the catalog's cheapest. */
async function verifyModel(context: WorkbenchContext, requested?: string): Promise<CatalogModel> {
  if (requested !== undefined) return context.catalog.find(requested, 'model');
  const cheapest = await context.catalog.cheapest();
  if (!cheapest) {
    throw new ApiFailure(502, {
      message: noVerifyModelText,
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
  return { message: unexpectedErrorText };
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

/** A step's trace fields: step 3's verify request, when the gateway sent them. */
type StepTrace = Pick<RotationStepLine, 'cf_ray' | 'cost_usd'>;

/** The replacement step 1 created: its secret, id and masked key. */
interface Replacement {
  secret: string;
  id: string;
  key: string;
}

/** One rotation as its steps see it: the run, its words, and the replacement once created. */
interface Rotation extends RotationRun {
  text: RotationText;
  allocated: boolean;
  /**
   * The replacement's limit: what the old key has really left, its limit less what it spent,
   * settled or not (`remaining_usd` counts only settled charges, which lag by up to
   * GATEWAY_SETTLE_INTERVAL_MS, so it would give back money just spent). Requests still running
   * on the old key are not counted here: they are charged to the old key when they end, even
   * after step 4 (its revocation returns to the account only what it had not spent by then), so
   * for that moment the account pays them on top of the replacement's limit, at most once.
   */
  limit: number;
  /** Set by step 1, which every later step runs after. */
  created?: Replacement;
}

/**
 * How a step went: its line's detail, and when it failed, how the rotation then ends (putting
 * back what can be put back, run after the failed line is written).
 */
type StepResult =
  | { ok: true; detail: string; trace?: StepTrace }
  | { ok: false; detail: string; trace?: StepTrace; end: () => Promise<RotationDoneLine> };

/** One step of a rotation. `run` catches every failure and describes it, never throws. */
interface RotationStep {
  number: 1 | 2 | 3 | 4;
  /** The detail of its `running` line, read when the step starts. */
  running(rotation: Rotation): string;
  run(rotation: Rotation): Promise<StepResult>;
}

/**
 * Runs steps in order, each with a `running` line and then a `done` or `failed` one. The first
 * failure ends the run with what that step says; after the last step, `finish` does.
 */
async function runSteps(
  steps: RotationStep[],
  rotation: Rotation,
  finish: () => RotationDoneLine,
): Promise<RotationDoneLine> {
  const line = (
    number: RotationStep['number'],
    status: RotationStepLine['status'],
    detail: string,
    extra: StepTrace = {},
  ) => rotation.emit({ step: number, name: stepNames[number], status, detail, ...extra });
  for (const step of steps) {
    line(step.number, 'running', step.running(rotation));
    const result = await step.run(rotation);
    line(step.number, result.ok ? 'done' : 'failed', result.detail, result.trace);
    if (!result.ok) return result.end();
  }
  return finish();
}

/** The replacement, which the steps after the first can count on. */
function replacementOf(rotation: Rotation): Replacement {
  if (!rotation.created) throw new Error('no replacement before step 1 is done');
  return rotation.created;
}

const refOf = ({ id, key }: { id: string; key: string }) => ({ id, key });

/** Every holder on `key`, as the keys store takes it. */
const holdersOn = (rotation: Rotation, key: string) =>
  Object.fromEntries(rotation.holders.map((name) => [name, key]));

/** Moves every holder to `key` in memory. */
function moveTo(rotation: Rotation, key: string): void {
  for (const name of rotation.holders) rotation.context.profiles.set(name, key);
}

/** The done line: ok when no step failed. */
function ending(
  rotation: Rotation,
  failedStep: RotationStep['number'] | null,
  { state, advice }: RotationOutcomeText,
  profileKey: { id: string; key: string },
  oldRevoked: boolean,
  newKey: RotationDoneLine['new_key'],
): RotationDoneLine {
  return {
    done: true,
    ok: failedStep === null,
    failed_step: failedStep,
    state,
    advice,
    profile: rotation.holder,
    profile_key: profileKey,
    old_key: { id: rotation.old.id, revoked: oldRevoked },
    new_key: newKey,
  };
}

/** Revokes the replacement after a failure; false when that fails too. */
function takeBack(rotation: Rotation): Promise<boolean> {
  const { context, accountKey } = rotation;
  const { id } = replacementOf(rotation);
  return revokeChildKey(context, accountKey, id).then(
    () => true,
    (error: unknown) => {
      context.logger.warn(
        { key_id: id, reason: failureOf(error, context).message },
        'the replacement of a failed rotation could not be revoked',
      );
      return false;
    },
  );
}

/** 1. Create the replacement, with the old key's name, expiry and what it has left (`limit`). */
const createReplacement: RotationStep = {
  number: 1,
  running: ({ text, limit }) => text.create.running(limit),
  async run(rotation) {
    const { context, accountKey, old, allocated, limit, text } = rotation;
    const request: NewChildKey = {
      kind: allocated ? 'allocated_child' : 'shared_child',
      name: old.name,
      expires_at: old.expires_at,
      replaces: old.id,
      ...(allocated ? { limit_usd: limit, grace_usd: old.grace_usd ?? 0 } : {}),
    };
    try {
      const issued = await createChildKey(context, accountKey, request);
      rotation.secrets.add(issued.secret);
      rotation.created = {
        secret: issued.secret,
        id: issued.summary.id,
        key: issued.summary.key,
      };
    } catch (error) {
      const failure = failureOf(error, context);
      return {
        ok: false,
        detail: failure.message,
        end: async () =>
          ending(rotation, 1, text.create.failed(failure.advice), refOf(old), false, null),
      };
    }
    return { ok: true, detail: text.create.done(replacementOf(rotation)) };
  },
};

/** 2. Update the server-side profile: the file first, so memory never holds what is not kept. */
const updateProfile: RotationStep = {
  number: 2,
  running: (rotation) => rotation.text.updateProfile.running(replacementOf(rotation)),
  async run(rotation) {
    const { context, store, holder, old, text } = rotation;
    const created = replacementOf(rotation);
    try {
      await store.putAll(holdersOn(rotation, created.secret));
    } catch (error) {
      return {
        ok: false,
        detail: failureOf(error, context).message,
        end: async () => {
          const revoked = await takeBack(rotation);
          return ending(
            rotation,
            2,
            text.updateProfile.failed(created, revoked),
            refOf(old),
            false,
            {
              ...refOf(created),
              revoked,
            },
          );
        },
      };
    }
    moveTo(rotation, created.secret);
    context.profiles.rememberKeyId(created.secret, created.id);
    context.profiles.rememberIdentity(holder, old.kind);
    return { ok: true, detail: text.updateProfile.done(created) };
  },
};

/** 3. Verify one minimal request with the new key. */
const verify: RotationStep = {
  number: 3,
  running: ({ text, model }) =>
    text.verify.running(model.id, minimalCallEstimate(model, 1).estimated_cost_usd),
  async run(rotation) {
    const { context, holder, model, text } = rotation;
    const { profiles } = context;
    let verifyFailure: { message: string; advice?: string } | null = null;
    let trace: StepTrace = {};
    try {
      const { secret } = replacementOf(rotation);
      const { answer, costUsd } = await minimalInference(context, secret, model.id, 1);
      trace = { cf_ray: answer.cfRay, cost_usd: costUsd };
      if (answer.status < 200 || answer.status >= 300) {
        const refusal = gatewayErrorFailure(
          answer.status,
          answer.json ? answer.json.value : answer.text,
          answer.cfRay,
          [...profiles.allKeys(), ...rotation.secrets],
        );
        verifyFailure = {
          message: text.verify.refused(answer.status, refusal.detail.message),
          advice: refusal.detail.advice,
        };
      } else if (answer.cfRay) {
        profiles.rememberTrace(holder, answer.cfRay);
      }
    } catch (error) {
      verifyFailure = failureOf(error, context);
    }
    if (!verifyFailure) return { ok: true, detail: text.verify.done(trace), trace };
    const { advice } = verifyFailure;
    return {
      ok: false,
      detail: verifyFailure.message,
      trace,
      end: () => putBackOldKey(rotation, advice),
    };
  },
};

/** After a failed verify, back to the old key, which still works: in memory, then in the file. */
async function putBackOldKey(
  rotation: Rotation,
  advice: string | undefined,
): Promise<RotationDoneLine> {
  const { context, store, holder, oldSecret, old, text } = rotation;
  const created = replacementOf(rotation);
  moveTo(rotation, oldSecret);
  let restored = true;
  try {
    await store.putAll(holdersOn(rotation, oldSecret));
  } catch (error) {
    restored = false;
    context.logger.error(
      { err: error, profile: holder },
      'a failed rotation could not put the old key back in the keys store',
    );
  }
  if (!restored) {
    // The file still names the replacement: it is kept working, so no restart finds a dead key.
    return ending(rotation, 3, text.verify.failedFileNotRestored(created), refOf(old), false, {
      ...refOf(created),
      revoked: false,
    });
  }
  const revoked = await takeBack(rotation);
  return ending(rotation, 3, text.verify.failed(created, revoked, advice), refOf(old), false, {
    ...refOf(created),
    revoked,
  });
}

/** 4. Revoke the old key. */
const revokeOld: RotationStep = {
  number: 4,
  running: ({ text }) => text.revokeOld.running(),
  async run(rotation) {
    const { context, accountKey, old, text } = rotation;
    try {
      await revokeChildKey(context, accountKey, old.id);
    } catch (error) {
      const created = refOf(replacementOf(rotation));
      return {
        ok: false,
        detail: failureOf(error, context).message,
        end: async () =>
          ending(rotation, 4, text.revokeOld.failed(created), created, false, {
            ...created,
            revoked: false,
          }),
      };
    }
    return { ok: true, detail: text.revokeOld.done() };
  },
};

/** The four steps, in order: create, repoint the profiles, verify, revoke the old key. */
const rotationSteps = [createReplacement, updateProfile, verify, revokeOld];

/** Runs the four steps; every failure is caught and described, so it always ends with a done line. */
export async function runRotation(run: RotationRun): Promise<RotationDoneLine> {
  const { holders, old, store } = run;
  const allocated = old.kind === 'allocated_child';
  const rotation: Rotation = {
    ...run,
    text: rotationText({
      holders,
      old,
      store: { description: store.description, path: store.location.path },
    }),
    allocated,
    limit: allocated ? remainingCountingPending(old) : 0,
  };
  return runSteps(rotationSteps, rotation, () => {
    const created = refOf(replacementOf(rotation));
    return ending(rotation, null, rotation.text.finished(created), created, true, {
      ...created,
      revoked: false,
    });
  });
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
      // The audit log records the outcome (people/audit.ts): ids and steps, never a secret.
      response.locals[auditAfterLocal] = {
        ok: done.ok,
        old_key_id: old.id,
        new_key_id: done.new_key?.id ?? null,
        failed_step: done.failed_step,
        moved_profiles: holders,
      };
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
