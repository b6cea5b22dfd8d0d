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

/**
 * Whether inline image data is base64 (standard or URL-safe alphabet, padding optional), so a
 * broken image is the caller's 400 naming the field, not something the model is billed for.
 */
export function isBase64(data: string): boolean {
  return data.length % 4 !== 1 && /^[A-Za-z0-9+/_-]+={0,2}$/.test(data);
}
