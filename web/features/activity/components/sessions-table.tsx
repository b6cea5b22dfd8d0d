/**
 * The agent sessions of the range (requests whose client named a session: Claude Code, Codex,
 * OpenCode), the latest active first: each one's requests, time, tokens, cache hits and cost, and
 * a button that narrows the requests table to it.
 */
import type { AgentSessionView } from '../../../../contract/workbench-api';
import { formatNanosUsd, usdToNanos } from '../../../../contract/usd-nanos';
import { Button } from '../../../components/button';
import { formatDateTime, formatDuration } from '../../../lib/format';

const countFormat = new Intl.NumberFormat('en-US');

export function SessionsTable({
  sessions,
  selected,
  onSelect,
}: {
  sessions: AgentSessionView[];
  /** The session the requests table shows, if one. */
  selected: string | null;
  onSelect(sessionId: string | null): void;
}) {
  return (
    <section aria-labelledby="sessions-heading" className="flex flex-col gap-2">
      <h2 id="sessions-heading" className="text-sm font-semibold">
        Agent sessions
      </h2>
      <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
        <table aria-labelledby="sessions-heading" className="w-full text-left text-xs">
          <thead className="text-zinc-600 dark:text-zinc-400">
            <tr>
              <th className="px-3 py-1.5 font-medium">Session</th>
              <th className="px-3 py-1.5 font-medium">Last active</th>
              <th className="px-3 py-1.5 text-right font-medium">Requests</th>
              <th className="px-3 py-1.5 text-right font-medium">Duration</th>
              <th className="px-3 py-1.5 text-right font-medium">Tokens (prompt / completion)</th>
              <th className="px-3 py-1.5 text-right font-medium">Cache hits</th>
              <th className="px-3 py-1.5 text-right font-medium">Cost</th>
              <th className="px-3 py-1.5">
                <span className="sr-only">Requests of the session</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((session) => {
              const current = session.session_id === selected;
              return (
                <tr
                  key={session.session_id}
                  aria-current={current ? 'true' : undefined}
                  className="border-t border-zinc-200 dark:border-zinc-800"
                >
                  <td
                    className="max-w-48 truncate px-3 py-1.5 font-mono"
                    title={session.session_id}
                  >
                    {session.session_id}
                  </td>
                  <td className="px-3 py-1.5">{formatDateTime(session.ended_at, 'seconds')}</td>
                  <td className="px-3 py-1.5 text-right tabular-nums">
                    {countFormat.format(session.requests)}
                  </td>
                  <td className="px-3 py-1.5 text-right tabular-nums">
                    {formatDuration(session.duration_seconds * 1000)}
                  </td>
                  <td className="px-3 py-1.5 text-right tabular-nums">
                    {countFormat.format(session.prompt_tokens)} /{' '}
                    {countFormat.format(session.completion_tokens)}
                  </td>
                  <td className="px-3 py-1.5 text-right tabular-nums">
                    {countFormat.format(session.cache_hits)}
                  </td>
                  <td className="px-3 py-1.5 text-right font-mono">
                    {formatNanosUsd(usdToNanos(session.cost_usd))}
                  </td>
                  <td className="px-3 py-1.5 text-right">
                    <Button
                      size="small"
                      variant="ghost"
                      aria-label={`${current ? 'All requests, not only' : 'Requests of'} session ${session.session_id}`}
                      onClick={() => onSelect(current ? null : session.session_id)}
                    >
                      {current ? 'Show all' : 'Show requests'}
                    </Button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
