/**
 * What the gateway dropped or changed of a request to reach its provider (its
 * `x-gateway-dropped-params` / `x-gateway-adjusted-params`, or the record's `translation`), in
 * two sizes: the whole list under a playground reply, a count with the list as its title in a
 * table row. Nothing is shown when nothing was dropped or changed.
 */
import type { TranslationReport } from '../../contract/gateway';

const describe = (report: TranslationReport) =>
  [
    report.dropped.length > 0 ? `Dropped: ${report.dropped.join(', ')}` : null,
    report.adjusted.length > 0 ? `Adjusted: ${report.adjusted.join(', ')}` : null,
  ]
    .filter(Boolean)
    .join('. ');

const isEmpty = (report: TranslationReport | null | undefined): report is null | undefined =>
  !report || (report.dropped.length === 0 && report.adjusted.length === 0);

/** The whole report, one line per kind of change. */
export function TranslationDetails({ report }: { report: TranslationReport | null | undefined }) {
  if (isEmpty(report)) return null;
  return (
    <dl aria-label="Translation" className="mt-1.5 text-xs text-zinc-600 dark:text-zinc-400">
      {report.dropped.length > 0 && (
        <div className="flex flex-wrap gap-x-1.5">
          <dt className="font-medium">Dropped for this provider:</dt>
          <dd className="font-mono break-all">{report.dropped.join(', ')}</dd>
        </div>
      )}
      {report.adjusted.length > 0 && (
        <div className="flex flex-wrap gap-x-1.5">
          <dt className="font-medium">Adjusted:</dt>
          <dd className="font-mono break-all">{report.adjusted.join(', ')}</dd>
        </div>
      )}
    </dl>
  );
}

/** A count for a narrow cell; the full list is its title and its accessible name. */
export function TranslationSummary({ report }: { report: TranslationReport | null | undefined }) {
  if (isEmpty(report)) return null;
  const counts = [
    report.dropped.length > 0 ? `${report.dropped.length} dropped` : null,
    report.adjusted.length > 0 ? `${report.adjusted.length} adjusted` : null,
  ]
    .filter(Boolean)
    .join(' · ');
  return (
    <div
      className="truncate text-xs text-zinc-600 dark:text-zinc-400"
      title={describe(report)}
      aria-label={`Translation: ${describe(report)}`}
    >
      {counts}
    </div>
  );
}
