/**
 * The words of a key rotation (key-rotation.ts), in one place: each step line's detail, and the
 * state and advice of the line it ends with. Keys appear only as their id and masked form.
 */
import type { ManagedKey } from '../../contract/gateway';

/** Key states a rotation cannot get through step 3 in, and what to do first. */
export const refusedStates: Record<string, string> = {
  revoked: 'it is revoked: there is nothing left to rotate',
  expired:
    'it has expired, and the replacement would take the same expiry: extend its expiry first (Set expiry), then rotate',
  depleted:
    'it has nothing left to spend, so the replacement could not serve the verify request: raise its limit first, then rotate',
  blocked:
    'its parent key (this account key) is disabled, expired or revoked, so no replacement could be used: fix the account key first',
};

export const noVerifyModelText =
  'The verify request needs a model, and the gateway’s catalog has none.';

export const unexpectedErrorText = 'The workbench hit an unexpected error; see its log.';

/** Dollars, with more places for an amount under a cent. */
export const usd = (value: number) => `$${value.toFixed(value !== 0 && value < 0.01 ? 8 : 2)}`;

/** How a rotation ends, in words: the done line's `state` and `advice`. */
export interface RotationOutcomeText {
  state: string;
  advice: string;
}

/** The replacement key, as the words name it. */
export interface ReplacementRef {
  id: string;
  key: string;
}

/** What the words of one rotation depend on. */
export interface RotationTextInput {
  /** Every profile holding the old key, the one named in the request first. */
  holders: string[];
  old: Pick<ManagedKey, 'id' | 'key' | 'name' | 'kind' | 'expires_at' | 'disabled'>;
  /** The keys store, as a step line names it (`description`) and as advice names its file. */
  store: { description: string; path: string };
}

/** `advice ` before what follows it, or nothing. */
const before = (advice: string | undefined) => (advice ? `${advice} ` : '');

/** The words of one rotation. */
export function rotationText({ holders, old, store }: RotationTextInput) {
  const quoted = holders.map((name) => `"${name}"`).join(', ');
  /** "profile "ci"", or "profiles "ci", "ci copy"" when several hold the key. */
  const who = holders.length === 1 ? `profile ${quoted}` : `profiles ${quoted}`;
  const Who = who.charAt(0).toUpperCase() + who.slice(1);
  /** The verb that agrees with `who`. */
  const verb = (one: string, many: string) => (holders.length === 1 ? one : many);
  const oldRef = `${old.id} (${old.key})`;
  const newRef = (replacement: ReplacementRef) => `${replacement.id} (${replacement.key})`;
  const allocated = old.kind === 'allocated_child';
  const replacementFate = (replacement: ReplacementRef, revoked: boolean) =>
    revoked
      ? `The replacement ${newRef(replacement)} was revoked.`
      : `The replacement ${newRef(replacement)} could not be revoked and still works.`;
  const revokeAdvice = (replacement: ReplacementRef, revoked: boolean) =>
    revoked ? '' : ` Revoke the replacement ${replacement.id} (Revoke in the child keys table).`;

  return {
    /** Step 1: create the replacement. */
    create: {
      running: (limit: number) =>
        `Creating a new ${allocated ? 'allocated' : 'shared'} child key named "${old.name}"${allocated ? ` with a limit of ${usd(limit)} (what the old key has left, counting charges not yet settled)` : ''}${old.expires_at !== null ? ' and the same expiry' : ''}.`,
      done: (replacement: ReplacementRef) =>
        `Created ${newRef(replacement)}.${old.disabled ? ' The old key is disabled; the replacement is enabled.' : ''}`,
      failed: (advice: string | undefined): RotationOutcomeText => ({
        state: `Nothing changed: ${who} still ${verb('uses', 'use')} the old key ${oldRef}, which still works. No replacement was made.`,
        advice: `${before(advice)}Fix what the gateway said${allocated ? ' (an allocated replacement needs the old key’s remaining free on the account key, until the old key is revoked)' : ''}, then rotate again.`,
      }),
    },
    /** Step 2: point the profiles at it in the keys store. */
    updateProfile: {
      running: (replacement: ReplacementRef) =>
        `Pointing ${who} at ${newRef(replacement)} in ${store.description}.`,
      done: (replacement: ReplacementRef) =>
        `${Who} now ${verb('uses', 'use')} ${newRef(replacement)}; ${store.description} was rewritten.`,
      failed: (replacement: ReplacementRef, revoked: boolean): RotationOutcomeText => ({
        state: `${Who} still ${verb('uses', 'use')} the old key ${oldRef}, which still works. ${replacementFate(replacement, revoked)}`,
        advice: `Make ${store.path} writable by the workbench, then rotate again.${revokeAdvice(replacement, revoked)}`,
      }),
    },
    /** Step 3: one minimal request with the replacement. */
    verify: {
      running: (model: string, estimatedCostUsd: number) =>
        `Sending one minimal request with the new key: model ${model}, max_tokens 1, estimated cost ${usd(estimatedCostUsd)}.`,
      refused: (status: number, message: string) => `HTTP ${status}: ${message}`,
      done: (trace: { cf_ray?: string | null; cost_usd?: number | null }) =>
        `The gateway served it with the new key${trace.cf_ray ? ` (trace ${trace.cf_ray})` : ''}${typeof trace.cost_usd === 'number' ? `, for ${usd(trace.cost_usd)}` : ''}.`,
      failed: (
        replacement: ReplacementRef,
        revoked: boolean,
        advice: string | undefined,
      ): RotationOutcomeText => ({
        state: `${Who} ${verb('is', 'are')} back on the old key ${oldRef}, which still works. ${replacementFate(replacement, revoked)}`,
        advice: `${before(advice)}Then rotate again.${revokeAdvice(replacement, revoked)}`,
      }),
      /** The old key is back in memory, but the file could not be rewritten to name it. */
      failedFileNotRestored: (replacement: ReplacementRef): RotationOutcomeText => ({
        state: `${Who} ${verb('is', 'are')} back on the old key ${oldRef}, which still works, but ${store.path} could not be rewritten and still holds the replacement ${newRef(replacement)}, which is kept working so the file never points at a dead key.`,
        advice: `Make ${store.path} writable by the workbench, then rotate again; revoke the replacement ${replacement.id} once the file no longer holds it.`,
      }),
    },
    /** Step 4: revoke the old key. */
    revokeOld: {
      running: () => `Revoking the old key ${oldRef}.`,
      done: () => `The old key ${oldRef} is revoked: the gateway refuses it from now on.`,
      failed: (replacement: ReplacementRef): RotationOutcomeText => ({
        state: `${Who} ${verb('uses', 'use')} the new, verified key ${newRef(replacement)}. The old key ${oldRef} still works and must be revoked.`,
        advice: `Revoke the old key ${old.id}: Revoke in the child keys table, or on the gateway’s machine: keys revoke ${old.id}.`,
      }),
    },
    /** All four steps done. */
    finished: (replacement: ReplacementRef): RotationOutcomeText => ({
      state: `${Who} ${verb('uses', 'use')} the new key ${newRef(replacement)}; the old key ${oldRef} is revoked.`,
      advice: `Nothing to do in the workbench. A program outside it that used the old key needs the new one, kept on the server in ${store.path}.`,
    }),
  };
}

export type RotationText = ReturnType<typeof rotationText>;
