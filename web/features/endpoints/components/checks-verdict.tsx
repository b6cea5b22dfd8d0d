/**
 * One line above the table when the gateway refused the key itself: how many checks it refused,
 * the state it named, and the fix ("9 checks refused: key disabled → Enable"), instead of the
 * same paragraph in every row.
 */
import { Link } from 'react-router';
import type { ChecksReport } from '../../../../contract/workbench-api';
import { refusalVerdict } from '../checks-report';

export function ChecksVerdict({
  report,
  profile,
}: {
  report: ChecksReport;
  profile: string | null;
}) {
  const verdict = refusalVerdict(report);
  if (!verdict) return null;
  return (
    <p
      role="status"
      className="rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/50 dark:text-red-100"
    >
      <strong className="font-semibold">
        {verdict.count} check{verdict.count === 1 ? '' : 's'} refused: {verdict.summary}
      </strong>{' '}
      <span aria-hidden="true">→</span>{' '}
      <Link
        to={`/keys${profile ? `?profile=${encodeURIComponent(profile)}` : ''}`}
        className="font-medium underline hover:no-underline"
      >
        {verdict.action}
      </Link>
      <span className="text-red-900 dark:text-red-200">
        {' '}
        (on the Keys page; the gateway answered HTTP 402 to each, as its GET /v1/key said it would).
      </span>
    </p>
  );
}
