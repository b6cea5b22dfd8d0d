/**
 * An account profile's child keys, managed from the workbench through the gateway's `/v1/keys`:
 * - `GET    /api/profiles/:profile/child-keys` lists them (masked) with the profile holding each;
 * - `POST   /api/profiles/:profile/child-keys` creates one and keeps its secret as a new profile
 *   in the keys store: the full key never reaches the browser, only its masked form, the
 *   profile's name and where the secret is kept;
 * - `POST   /api/profiles/:profile/child-keys/hand-over` creates one and hands it over instead:
 *   shown once, kept nowhere (hand-over.ts);
 * - `PATCH  /api/profiles/:profile/child-keys/:id` changes name, limit, grace, expiry, disabled;
 * - `DELETE /api/profiles/:profile/child-keys/:id` revokes it, and removes the profiles holding
 *   it, so no profile points at a dead key;
 * - `GET    /api/profiles/:profile/child-keys/:id/events` lists its audited changes;
 * - rotation, in four steps (create, repoint, verify, revoke): key-rotation.ts; of a key no
 *   profile holds, handed over instead (`POST …/child-keys/:id/rotation/hand-over`, hand-over.ts).
 * Key management always needs a session when sign-in is on (WORKBENCH_ACCESS_TOKEN).
 */
import { Router } from 'express';
import { z } from 'zod';
import {
  createChildKeyRequestSchema,
  profileNamePattern,
  updateChildKeyRequestSchema,
  type ChildKeys,
  type CreatedChildKey,
  type RevokedChildKey,
} from '../../contract/workbench-api';
import {
  childKeyEvents,
  childKeyOf,
  createChildKey,
  listChildKeys,
  profilesHolding,
  revokeChildKey,
  showChildKey,
  updateChildKey,
  type KeyCallOptions,
} from './child-keys-gateway';
import {
  childKeyPath,
  childKeysPath,
  childKeysPathPattern,
  keyParamsSchema,
  profileParamsSchema,
  refuseMoneyOnSharedChild,
  type ChildKeysOptions,
} from './child-keys-params';
import type { WorkbenchContext } from '../core/context';
import { ApiFailure, parseInput, setAdviceSituation, validationFailure } from '../core/errors';
import { createHandOverRouter } from './hand-over';
import { createRotationRouter } from './key-rotation';
import { noKeysStoreAdvice, requireKeysStore } from './keys-store';
import { containsSecret } from '../core/secrets';
import { auditBeforeLocal } from '../people/audit';

const listQuerySchema = z.object({ include_revoked: z.enum(['true', 'false']).optional() });

const eventsQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'must be a whole number')
    .transform(Number)
    .refine((value) => value >= 1 && value <= 200, { message: 'must be between 1 and 200' })
    .optional(),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}={0,2}$/, 'must be the next_cursor of a previous page')
    .optional(),
});

/** DELETE carries a JSON body (the same-origin guard asks for one): `{}`, or none. */
const revokeBodySchema = z.strictObject({}).optional();

/**
 * A profile name for a new key, from the key's name: characters a profile name may not hold
 * become dashes, and `-2`, `-3`… make it unique.
 */
export function profileNameFor(keyName: string, taken: (name: string) => boolean): string {
  let base = keyName
    .normalize('NFKD')
    // Accents go (é becomes e); other characters a profile name cannot hold become dashes.
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9 ._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64)
    .trim();
  if (base === '' || containsSecret(base) || !profileNamePattern.test(base)) base = 'child-key';
  if (!taken(base)) return base;
  for (let number = 2; ; number += 1) {
    const suffix = `-${number}`;
    const candidate = `${base.slice(0, 64 - suffix.length)}${suffix}`;
    if (!taken(candidate)) return candidate;
  }
}

export function createChildKeysRouter(
  context: WorkbenchContext,
  options: ChildKeysOptions,
): Router {
  const { profiles, logger } = context;
  const { keysStore } = options;
  /** Profile names being created right now: two creations never take the same one. */
  const reserved = new Set<string>();
  const router = Router();

  // Mounted without a path, so the session check sees the whole path (a key id never passes
  // for one of the open sign-in routes).
  router.use((request, response, next) => {
    if (!childKeysPathPattern.test(request.path)) return next();
    // A 403 or 404 from the gateway here is about managing keys, and is advised on as such.
    setAdviceSituation(response.locals, { keyManagement: true });
    options.requireSession(request, response, next);
  });

  const callOptions = (response: { locals: Record<string, unknown> }): KeyCallOptions => ({
    onCfRay: (cfRay) => {
      response.locals.cfRay = cfRay;
    },
  });

  router.get(childKeysPath, async (request, response) => {
    const { profile } = parseInput(profileParamsSchema, request.params, 'query');
    const query = parseInput(listQuerySchema, request.query, 'query');
    const accountKey = profiles.keyOf(profile);
    const keys = await listChildKeys(
      context,
      accountKey,
      query.include_revoked === 'true',
      callOptions(response),
    );
    const holders = await profilesHolding(context, keys);
    const knownKeys = profiles.allKeys();
    const answer: ChildKeys = {
      profile,
      keys: keys.map((key) => childKeyOf(key, holders.get(key.id)?.[0] ?? null, knownKeys)),
      keys_store: keysStore?.description ?? null,
      ...(keysStore ? {} : { keys_store_advice: noKeysStoreAdvice }),
      fetched_at: Date.now(),
    };
    response.json(answer);
  });

  router.post(childKeysPath, async (request, response) => {
    const { profile } = parseInput(profileParamsSchema, request.params, 'query');
    const input = parseInput(createChildKeyRequestSchema, request.body, 'body');
    const accountKey = profiles.keyOf(profile);
    refuseMoneyOnSharedChild(input);
    // Refused before anything is created: a key made with nowhere to keep it would be lost.
    const store = requireKeysStore(keysStore, 'Creating a key');
    const taken = (name: string) => profiles.has(name) || reserved.has(name);
    if (input.profile_name !== undefined) {
      if (containsSecret(input.profile_name, profiles.allKeys())) {
        throw validationFailure('profile_name', 'looks like a key: names are shown in the browser');
      }
      if (taken(input.profile_name)) {
        throw validationFailure(
          'profile_name',
          `a profile named "${input.profile_name}" already exists: choose another name`,
          409,
        );
      }
    }
    const name = input.profile_name ?? profileNameFor(input.name, taken);
    reserved.add(name);
    try {
      const issued = await createChildKey(
        context,
        accountKey,
        {
          kind: input.kind,
          name: input.name,
          ...(input.limit_usd !== undefined ? { limit_usd: input.limit_usd } : {}),
          ...(input.grace_usd !== undefined ? { grace_usd: input.grace_usd } : {}),
          ...(input.expires_at !== undefined ? { expires_at: input.expires_at } : {}),
        },
        callOptions(response),
      );
      try {
        await store.put(name, issued.secret);
      } catch (error) {
        // The key cannot be kept, so nobody could ever use it: take it back.
        const revoked = await revokeChildKey(context, accountKey, issued.summary.id).then(
          () => true,
          () => false,
        );
        logger.error(
          { err: error, key_id: issued.summary.id, revoked },
          'a created key could not be stored',
        );
        throw new ApiFailure(500, {
          message: `The key was created but could not be kept: ${(error as Error).message}`,
          stage: 'internal',
          type: 'keys_store_failed',
          advice: revoked
            ? `It was revoked again, so nothing is left behind. Make ${store.location.path} writable by the workbench, then create the key again.`
            : `It could not be revoked again either: revoke key ${issued.summary.id} (gateway command line: keys revoke ${issued.summary.id}), make ${store.location.path} writable by the workbench, then create the key again.`,
        });
      }
      profiles.set(name, issued.secret);
      profiles.rememberKeyId(issued.secret, issued.summary.id);
      profiles.rememberIdentity(name, issued.summary.kind);
      logger.info(
        { profile: name, key_id: issued.summary.id, kind: issued.summary.kind },
        `child key created and kept in ${store.description}`,
      );
      const answer: CreatedChildKey = {
        key: childKeyOf(issued.summary, name, profiles.allKeys()),
        profile: profiles.describe(name),
        stored_in: store.description,
      };
      response.status(201).json(answer);
    } finally {
      reserved.delete(name);
    }
  });

  router.patch(childKeyPath, async (request, response) => {
    const { profile, id } = parseInput(keyParamsSchema, request.params, 'query');
    const change = parseInput(updateChildKeyRequestSchema, request.body, 'body');
    const accountKey = profiles.keyOf(profile);
    // The audit log records the key as it was before the change (people/audit.ts).
    const before = await showChildKey(context, accountKey, id, callOptions(response));
    response.locals[auditBeforeLocal] = childKeyOf(before, null, profiles.allKeys());
    const key = await updateChildKey(context, accountKey, id, change, callOptions(response));
    const holders = await profilesHolding(context, [key]);
    response.json({ key: childKeyOf(key, holders.get(key.id)?.[0] ?? null, profiles.allKeys()) });
  });

  router.delete(childKeyPath, async (request, response) => {
    const { profile, id } = parseInput(keyParamsSchema, request.params, 'query');
    parseInput(revokeBodySchema, request.body, 'body');
    const accountKey = profiles.keyOf(profile);
    // Who holds the key is asked before it is revoked: the gateway still answers for it then.
    const before = await showChildKey(context, accountKey, id, callOptions(response));
    const holders = (await profilesHolding(context, [before])).get(before.id) ?? [];
    const revoked = await revokeChildKey(context, accountKey, id, callOptions(response));
    const notes: string[] = [];
    const fromEnvironment = holders.filter((name) => options.environmentProfiles.includes(name));
    const stored = holders.filter((name) => !fromEnvironment.includes(name));
    if (keysStore && stored.length > 0) {
      try {
        await keysStore.remove(stored);
      } catch (error) {
        notes.push(
          `The keys store could not be updated (${(error as Error).message}): remove ${quoteList(stored)} from ${keysStore.location.path} by hand, or it comes back, revoked, after a restart.`,
        );
      }
    }
    for (const name of holders) profiles.remove(name);
    for (const name of fromEnvironment) {
      notes.push(
        `Profile "${name}" comes from GATEWAY_API_KEY: it is gone until the workbench restarts; change that variable, which now holds a revoked key.`,
      );
    }
    logger.info({ key_id: id, removed_profiles: holders }, 'child key revoked');
    const message =
      holders.length === 0
        ? `Key ${id} is revoked. No workbench profile held it.`
        : `Key ${id} is revoked. ${holders.length === 1 ? 'Profile' : 'Profiles'} ${quoteList(holders)} held it and ${holders.length === 1 ? 'was' : 'were'} removed${keysStore && stored.length > 0 ? `, from ${keysStore.description} too` : ''}, so no profile points at a dead key.`;
    const answer: RevokedChildKey = {
      key: childKeyOf(revoked, null, profiles.allKeys()),
      removed_profiles: holders,
      message: [message, ...notes].join(' '),
    };
    response.json(answer);
  });

  router.get(`${childKeyPath}/events`, async (request, response) => {
    const { profile, id } = parseInput(keyParamsSchema, request.params, 'query');
    const query = parseInput(eventsQuerySchema, request.query, 'query');
    const accountKey = profiles.keyOf(profile);
    response.json(await childKeyEvents(context, accountKey, id, query, callOptions(response)));
  });

  router.use(createHandOverRouter(context));
  router.use(createRotationRouter(context, options));
  return router;
}

const quoteList = (names: string[]) => names.map((name) => `"${name}"`).join(', ');
