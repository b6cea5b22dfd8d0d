/**
 * `POST /api/profiles/:profile/child-keys/hand-over`: a new child key handed to the person who
 * asked, not kept as a profile. Its answer is the one BFF answer that carries a full key: it
 * needs the person's confirmation (`show_once: true`), is sent once with `Cache-Control:
 * no-store`, and the workbench keeps no copy (no profile, no keys file, no log line).
 * Key management needs a session: the child-keys router checks it before this runs.
 */
import { Router } from 'express';
import {
  handOverChildKeyRequestSchema,
  type HandedOverChildKey,
} from '../../contract/workbench-api';
import type { WorkbenchContext } from '../core/context';
import { parseInput } from '../core/errors';
import { childKeyOf, createChildKey } from './child-keys-gateway';
import { childKeysPath, profileParamsSchema, refuseMoneyOnSharedChild } from './child-keys-params';

export const handOverPath = `${childKeysPath}/hand-over`;

export function createHandOverRouter(context: WorkbenchContext): Router {
  const { profiles, logger } = context;
  const router = Router();

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
    // The id and kind only: the secret goes to the browser and nowhere else.
    logger.info(
      { key_id: issued.summary.id, kind: issued.summary.kind },
      'child key created and handed over; the workbench keeps no copy',
    );
    const answer: HandedOverChildKey = {
      key: childKeyOf(issued.summary, null, profiles.allKeys()),
      secret: issued.secret,
    };
    // Said here too, not left to the API-wide header: this answer must never be cached.
    response.setHeader('Cache-Control', 'no-store');
    response.status(201).json(answer);
  });

  return router;
}
