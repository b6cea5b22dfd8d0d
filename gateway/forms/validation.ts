/** Turns a zod failure into the one 400 that names the field, for every public form. */
import type { z } from 'zod';
import { invalidRequest, type GatewayError } from '../errors';

export function validationError(error: z.ZodError): GatewayError {
  const issue = error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
  return invalidRequest(`Invalid field '${field}': ${issue.message}`);
}

export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}
