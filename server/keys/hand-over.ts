/**
 * Child keys handed to the person who asked, not kept as a profile:
 * - `POST /api/profiles/:profile/child-keys/hand-over` creates one;
 * - `POST /api/profiles/:profile/child-keys/:id/rotation/hand-over` gives one no profile holds a
 *   new secret (the gateway's own rotate: the old secret stops at once).
 * Their answers are the only BFF answers that carry a full key: each needs the person's
 * confirmation (`show_once: true`), is sent once with `Cache-Control: no-store`, and the
 * workbench keeps no copy (no profile, no keys file, no log line).
 * Key management needs a session: the child-keys router checks it before these run.
 */
import { Router, type Response } from 'express';
import {
  handOverChildKeyRequestSchema,
  handOverRotationRequestSchema,
  type HandedOverChildKey,
} from '../../contract/workbench-api';
import type { WorkbenchContext } from '../core/context';
import { parseInput, validationFailure } from '../core/errors';
import {
  childKeyOf,
  createChildKey,
  profilesHolding,
  rotateChildKey,
  showChildKey,
  type IssuedChildKey,
} from './child-keys-gateway';
import {
  childKeyPath,
  childKeysPath,
  keyParamsSchema,
  profileParamsSchema,
  refuseMoneyOnSharedChild,
} from './child-keys-params';

export const handOverPath = `${childKeysPath}/hand-over`;
export const handOverRotationPath = `${childKeyPath}/rotation/hand-over`;

export function createHandOverRouter(context: WorkbenchContext): Router {
  const { profiles, logger } = context;
  const router = Router();

  /** Sends the one answer that carries the key, and logs what was done without it. */
  function handOver(
    response: Response,
    issued: IssuedChildKey,
    status: 200 | 201,
    done: 'created' | 'rotated',
  ) {
    // The id and kind only: the secret goes to the browser and nowhere else.
    logger.info(
      { key_id: issued.summary.id, kind: issued.summary.kind },
      `child key ${done} and handed over; the workbench keeps no copy`,
    );
    const answer: HandedOverChildKey = {
      key: childKeyOf(issued.summary, null, profiles.allKeys()),
      secret: issued.secret,
    };
    // Said here too, not left to the API-wide header: this answer must never be cached.
    response.setHeader('Cache-Control', 'no-store');
    response.status(status).json(answer);
  }

  router.post(handOverPath, async (request, response) => {
    const { profile } = parseInput(profileParamsSchema, request.params, 'query');
    // Checked before anything is created: without the confirmation no key exists to lose.
    const input = parseInput(handOverChildKeyRequestSchema, request.body, 'body');
    refuseMoneyOnSharedChild(input);
    const accountKey = profiles.keyOf(profile);
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
      {
        onCfRay: (cfRay) => {
          response.locals.cfRay = cfRay;
        },
      },
    );
    handOver(response, issued, 201, 'created');
  });

  router.post(handOverRotationPath, async (request, response) => {
    const { profile, id } = parseInput(keyParamsSchema, request.params, 'query');
    // Checked before anything changes: without the confirmation the old secret keeps working.
    parseInput(handOverRotationRequestSchema, request.body, 'body');
    const accountKey = profiles.keyOf(profile);
    const old = await showChildKey(context, accountKey, id);
    // A profile on this key would be left on a dead secret: its key rotates in four steps.
    const holder = (await profilesHolding(context, [old])).get(old.id)?.[0];
    if (holder !== undefined) {
      throw validationFailure(
        'profile',
        `the profile "${holder}" holds key ${id}: rotate it without Hand over, so the profile moves to the new key`,
        409,
      );
    }
    const issued = await rotateChildKey(context, accountKey, id, {
      onCfRay: (cfRay) => {
        response.locals.cfRay = cfRay;
      },
    });
    handOver(response, issued, 200, 'rotated');
  });

  return router;
}
