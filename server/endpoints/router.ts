/**
 * `GET /api/checks?profile=` (the last report, or the plan when none ran) and `POST /api/checks`
 * (a run: every check, or `only` some; inference checks only with `include_paid`).
 */
import { Router } from 'express';
import { z } from 'zod';
import { runChecksRequestSchema } from '../../contract/workbench-api';
import { abortOnClientClose } from '../core/client-close';
import type { WorkbenchContext } from '../core/context';
import { parseInput } from '../core/errors';
import { EndpointChecks } from './runner';

const checksQuerySchema = z.object({ profile: z.string().min(1) });

export function createChecksRouter(context: WorkbenchContext): Router {
  const router = Router();
  const checks = new EndpointChecks(context);
  router.get('/checks', async (request, response) => {
    const query = parseInput(checksQuerySchema, request.query, 'query');
    response.json(await checks.plan(query.profile));
  });
  router.post('/checks', async (request, response) => {
    const input = parseInput(runChecksRequestSchema, request.body, 'body');
    const signal = abortOnClientClose(response);
    response.json(
      await checks.run(input.profile, {
        includePaid: input.include_paid,
        only: input.only,
        model: input.model,
        signal,
      }),
    );
  });
  return router;
}
