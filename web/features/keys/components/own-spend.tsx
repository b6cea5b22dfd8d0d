import { useActivity } from '../../../api/activity';
import { formatUsd, formatUsdCents } from '../../../lib/format';

/** How far back a key's own spend is added up (the Activity page's default range). */
export const ownSpendDays = 30;

/**
 * What one key spent itself, from its own records (the Activity route filtered to the key): a
 * shared child's balance is its account's, so this is the only place its own spend shows.
 * Cents in the row, the exact amount on hover.
 */
export function OwnSpend({
  profile,
  keyId = null,
  inRow = false,
}: {
  /** Whose records: an account profile (with `keyId`, one of its children), or the key's own. */
  profile: string;
  keyId?: string | null;
  /** In the child keys table: small, and saying what it is ("own, 30 d"). */
  inRow?: boolean;
}) {
  const activity = useActivity(profile, ownSpendDays, keyId);
  if (!activity.data) return null;
  const spent = activity.data.totals.cost_usd;
  return (
    <span
      className={inRow ? 'text-xs text-zinc-600 dark:text-zinc-400' : undefined}
      title={`${formatUsd(spent)} spent by this key itself in the last ${ownSpendDays} days`}
    >
      {formatUsdCents(spent)}
      {inRow && ` own, ${ownSpendDays} d`}
    </span>
  );
}
