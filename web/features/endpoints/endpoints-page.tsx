import { useId, useState } from 'react';
import type { CheckResult } from '../../../contract/workbench-api';
import { useHealth } from '../../api/health';
import { useProfile } from '../../app/profile-context';
import { Button } from '../../components/button';
import { ErrorPanel } from '../../components/error-panel';
import { PageLayout } from '../../components/page-layout';
import { EmptyState, LoadingState } from '../../components/states';
import { formatTime, formatUsd } from '../../lib/format';
import { useChecks, useRunChecks, type RunChecksVariables } from './api/checks';
import { paidChecksCost, shownExplanations } from './checks-report';
import { AvailabilitySection } from './components/availability-section';
import { ChecksTable } from './components/checks-table';
import { ChecksVerdict } from './components/checks-verdict';
import { ExportMenu } from './components/export-menu';

/** The checks that could not reach the gateway, and when the last of them ran; null if none. */
function outageOf(results: CheckResult[]): { count: number; ranAt: number } | null {
  const failed = results.filter((result) => result.gateway_unreachable && result.ran_at !== null);
  if (failed.length === 0) return null;
  return {
    count: failed.length,
    ranAt: Math.max(...failed.map((result) => result.ran_at ?? 0)),
  };
}

/** `/endpoints`: which gateway endpoints answer, for the chosen key, in each auth form. */
export function EndpointsPage() {
  const { profile, profiles } = useProfile();
  const checks = useChecks(profile);
  const health = useHealth();
  const runChecks = useRunChecks();
  const [includePaid, setIncludePaid] = useState(false);
  const [lastRun, setLastRun] = useState<RunChecksVariables | null>(null);
  const paidCheckboxId = useId();

  const report = checks.data;
  // Only the checks that cost money (inference on a model that is not free, or of unknown
  // price) wait for a choice; every free one runs on Run checks.
  const paid = paidChecksCost(report?.results ?? []);
  const model = report?.model ?? null;
  const unreachable = outageOf(report?.results ?? []);
  const maskedKey = profiles.find((candidate) => candidate.name === profile)?.masked_key;
  const running = runChecks.isPending ? runChecks.variables : undefined;
  const runningIds = new Set<string>(
    running
      ? (running.only ??
          report?.results
            .filter((result) => running.includePaid || !result.paid)
            .map((result) => result.id) ??
          [])
      : [],
  );

  function run(variables: RunChecksVariables) {
    setLastRun(variables);
    runChecks.mutate(variables);
  }

  return (
    <PageLayout
      title="Endpoints"
      description="Which gateway routes answer, with which key form, for the chosen profile."
      actions={
        <>
          <span className="text-xs text-zinc-600 dark:text-zinc-400">
            {report?.ran_at ? `Last run ${formatTime(report.ran_at)}` : 'Not run yet'}
          </span>
          {report && (
            <ExportMenu
              report={report}
              maskedKey={maskedKey}
              gatewayBaseUrl={health.data?.gateway_base_url}
            />
          )}
        </>
      }
    >
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
        <Button
          variant="primary"
          disabled={profile === null || runChecks.isPending}
          onClick={() => profile && run({ profile, includePaid })}
        >
          {runChecks.isPending && !running?.only ? 'Running…' : 'Run checks'}
        </Button>
        {paid.count > 0 && (
          <div className="flex items-center gap-2 text-sm">
            <input
              id={paidCheckboxId}
              type="checkbox"
              className="size-4 accent-sky-700"
              checked={includePaid}
              onChange={(event) => setIncludePaid(event.target.checked)}
            />
            <label htmlFor={paidCheckboxId}>
              Include paid checks
              <span className="text-zinc-600 dark:text-zinc-400">
                {!model && paid.cost === 0
                  ? ` (${paid.count} inference call${paid.count === 1 ? '' : 's'} to the cheapest catalog model; the catalog could not be read, so the model and the cost are unknown)`
                  : ` (${paid.entries.join(', ')}: about ${formatUsd(paid.cost)} in total)`}
              </span>
            </label>
          </div>
        )}
        <p className="text-xs text-zinc-600 dark:text-zinc-400 sm:ml-auto">
          {paid.count > 0
            ? 'Every other check is free and runs. Results show masked keys only.'
            : 'Every check is free and runs. Results show masked keys only.'}
        </p>
      </div>

      {unreachable && (
        <p
          data-testid="checks-outage-note"
          className="rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-100"
        >
          <strong className="font-semibold">
            The gateway did not answer during the run at {formatTime(unreachable.ranAt)}
          </strong>
          : {unreachable.count} check{unreachable.count === 1 ? '' : 's'} could not connect, so{' '}
          {unreachable.count === 1 ? 'its row shows' : 'their rows show'} the outage, not the state
          of the endpoint.{' '}
          {health.data?.reachable
            ? 'The gateway answers again: these results may be stale. Run checks to refresh them.'
            : 'Run checks again once the gateway answers.'}
        </p>
      )}

      {report && <ChecksVerdict report={report} profile={profile} />}

      {runChecks.isError && (
        <ErrorPanel
          what={lastRun?.only ? 'Running the check' : 'Running the checks'}
          error={runChecks.error}
          onRetry={lastRun ? () => run(lastRun) : undefined}
        />
      )}

      {profile === null ? (
        profiles.length === 0 ? (
          <EmptyState title="No key profiles">
            The workbench server holds no keys, so there is nothing to check with. Start it with{' '}
            <code>WORKBENCH_KEYS_FILE</code> or <code>GATEWAY_API_KEY</code> set.
          </EmptyState>
        ) : (
          <EmptyState title="No key profile chosen">
            Choose a key in the header to plan its checks.
          </EmptyState>
        )
      ) : checks.isPending ? (
        <LoadingState>Loading the check plan…</LoadingState>
      ) : checks.isError ? (
        <ErrorPanel
          what="Loading the check plan"
          error={checks.error}
          onRetry={() => void checks.refetch()}
        />
      ) : checks.data.results.length === 0 ? (
        <EmptyState title="No checks planned">
          The workbench server planned no endpoint checks for this profile.
        </EmptyState>
      ) : (
        <ChecksTable
          results={checks.data.results}
          explanations={shownExplanations(checks.data)}
          includePaid={includePaid}
          runningIds={runningIds}
          onRerun={(result) =>
            run({ profile, includePaid: includePaid && result.paid, only: [result.id] })
          }
        />
      )}

      {/* Below the checks: on a phone, a long model list must not push the table off screen. */}
      <AvailabilitySection firstModel={model?.id ?? null} />
    </PageLayout>
  );
}
