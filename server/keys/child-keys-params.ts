/**
 * What the child-key routes (child-keys.ts, key-rotation.ts) share: their path, its parameters,
 * and the settings they run with.
 */
import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { CreateChildKeyRequest } from '../../contract/workbench-api';
import { validationFailure } from '../core/errors';
import type { KeysStore } from './keys-store';

export interface ChildKeysOptions {
  /** Where created and rotated keys are kept; null: nowhere, so both are refused. */
  keysStore: KeysStore | null;
  /** Profiles whose key an environment variable gives (GATEWAY_API_KEY): never rewritten. */
  environmentProfiles: string[];
  /** The sign-in check (access.ts), applied here too: key management always needs a session. */
  requireSession: RequestHandler;
}

/** An account profile's child keys. */
export const childKeysPath = '/profiles/:profile/child-keys';
/** One of them. */
export const childKeyPath = `${childKeysPath}/:id`;
/** Any path under `childKeysPath`. */
export const childKeysPathPattern = /^\/profiles\/[^/]+\/child-keys(?:\/|$)/;

/** A gateway key id, as it travels in paths. */
export const keyIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be a key id');

export const profileParamsSchema = z.object({ profile: z.string().min(1) });
export const keyParamsSchema = profileParamsSchema.extend({ id: keyIdSchema });

/** Refuses a shared child with a limit or grace: it spends its parent's balance. */
export function refuseMoneyOnSharedChild(
  input: Pick<CreateChildKeyRequest, 'kind' | 'limit_usd' | 'grace_usd'>,
): void {
  if (input.kind !== 'shared_child') return;
  const field = input.limit_usd !== undefined ? 'limit_usd' : 'grace_usd';
  if (input[field] !== undefined) {
    throw validationFailure(
      field,
      "a shared child spends its parent's balance: it takes no limit_usd or grace_usd",
    );
  }
}
