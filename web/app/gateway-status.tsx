/**
 * The line under the header that says when the gateway (or the workbench server itself) does
 * not answer, so every page's errors make sense. It polls the health check while the page is
 * visible: an outage shows within two seconds, and so does the recovery, after which the queries
 * that failed meanwhile are asked again.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, type ReactNode } from 'react';
import type { Health } from '../../contract/workbench-api';
import { useHealth } from '../api/health';
import { ApiRequestError } from '../lib/api-client';

function Banner({ children }: { children: ReactNode }) {
  return (
    <div
      role="status"
      data-testid="gateway-banner"
      className="border-b border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-950 sm:px-6 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-100"
    >
      {children}
    </div>
  );
}

/** Ends a message with a full stop unless it has one. */
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** What the banner says about a gateway that does not answer. */
function GatewayDown({ health }: { health: Health }) {
  const embedded = health.embedded_gateway;
  if (embedded && embedded.state === 'restarting') {
    return (
      <Banner>
        <strong className="font-semibold">
          The embedded gateway stopped; restarting (attempt {embedded.attempt})…
        </strong>{' '}
        {embedded.last_exit ? `It ended with ${embedded.last_exit}. ` : ''}
        {health.advice}
      </Banner>
    );
  }
  return (
    <Banner>
      The gateway at <span className="font-mono break-all">{health.gateway_base_url}</span> does not
      answer{health.error ? `: ${sentence(health.error)}` : '.'}{' '}
      {health.advice ?? 'Check that it is running.'}
    </Banner>
  );
}

export function GatewayStatus() {
  const health = useHealth({ poll: true });
  const queryClient = useQueryClient();
  const serverDown = health.error instanceof ApiRequestError && health.error.stage === 'network';
  const down = serverDown || health.data?.reachable === false;

  // When the gateway answers again, what failed while it was down is asked again at once.
  const wasDown = useRef(false);
  useEffect(() => {
    if (wasDown.current && !down && health.data?.reachable) {
      void queryClient.refetchQueries({
        type: 'active',
        predicate: (query) => query.state.status === 'error' && query.queryKey[0] !== 'health',
      });
    }
    wasDown.current = down;
  }, [down, health.data, queryClient]);

  if (serverDown) {
    return (
      <Banner>
        The workbench server does not answer. Check that{' '}
        <code className="font-mono">npm start</code> is still running; this page reconnects by
        itself.
      </Banner>
    );
  }
  if (!health.data || health.data.reachable) return null;
  return <GatewayDown health={health.data} />;
}
