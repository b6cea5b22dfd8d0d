/**
 * The raw exchange of one run: the body sent to the BFF, the gateway request the BFF made of it
 * (key masked), and the response or the stream's events as they arrived.
 */
import { Tabs } from 'radix-ui';
import { formatDuration } from '../../../lib/format';
import type { RunRecord } from '../playground-types';
import {
  bffRequestText,
  gatewayRequestText,
  partStreamEvents,
  responseText,
  streamEventsText,
} from '../raw-exchange';
import { CodeBlock } from './code-block';
import { PlaygroundDialog } from './playground-dialog';

const tabClasses =
  'rounded-md px-2.5 py-1 text-sm font-medium text-zinc-700 hover:bg-zinc-100 data-[state=active]:bg-zinc-900 data-[state=active]:text-white dark:text-zinc-300 dark:hover:bg-zinc-800 dark:data-[state=active]:bg-zinc-100 dark:data-[state=active]:text-zinc-900';

export function RawViewDialog({
  run,
  onClose,
  gatewayBaseUrl,
  maskedKey,
}: {
  run: RunRecord | null;
  onClose(): void;
  gatewayBaseUrl: string | null;
  maskedKey: string | null;
}) {
  const events = run?.response?.kind === 'stream' ? run.response.events : [];
  const { gateway: gatewayEvents, workbench: workbenchEvents } = partStreamEvents(events);
  return (
    <PlaygroundDialog
      open={run !== null}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
      title="Raw request and response"
      description="The browser never holds a key: the BFF adds it when it calls the gateway."
    >
      {run && (
        <Tabs.Root defaultValue="received" className="flex flex-col gap-3">
          <Tabs.List
            aria-label="Part of the exchange"
            className="flex flex-wrap gap-1 border-b border-zinc-200 pb-2 dark:border-zinc-800"
          >
            <Tabs.Trigger value="sent" className={tabClasses}>
              Sent to the BFF
            </Tabs.Trigger>
            <Tabs.Trigger value="gateway" className={tabClasses}>
              Gateway request
            </Tabs.Trigger>
            <Tabs.Trigger value="received" className={tabClasses}>
              {run.response?.kind === 'stream'
                ? `Stream events (${gatewayEvents.length})`
                : 'Response'}
            </Tabs.Trigger>
          </Tabs.List>
          <Tabs.Content value="sent">
            <CodeBlock
              code={bffRequestText(run.request)}
              language="plaintext"
              copyLabel="Copy the request sent"
            />
          </Tabs.Content>
          <Tabs.Content value="gateway">
            <CodeBlock
              code={gatewayRequestText(gatewayBaseUrl ?? 'http://gateway', run.request, maskedKey)}
              language="plaintext"
              copyLabel="Copy the gateway request"
            />
          </Tabs.Content>
          <Tabs.Content value="received" className="flex flex-col gap-2">
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              Gateway HTTP {run.upstreamStatus ?? '—'} · cf-ray{' '}
              <span className="font-mono">{run.cfRay ?? '—'}</span> · BFF time to first byte{' '}
              {formatDuration(run.meta?.ttfb_ms)} · total {formatDuration(run.meta?.total_ms)}
            </p>
            {run.request.api === 'responses' && (
              <p className="text-xs text-zinc-600 dark:text-zinc-400">
                The gateway answered in the Responses form; the workbench server passed it on in the
                chat-completion shape shown here.
              </p>
            )}
            {/* The workbench server's own events (its timing, its errors) are labelled apart, so
                nobody takes them for something the gateway sent. */}
            {workbenchEvents.length > 0 && (
              <section aria-label="Workbench server events" className="flex flex-col gap-1">
                <h3 className="text-xs font-medium">
                  From the workbench server, not the gateway: its own timing and errors, around the
                  gateway&apos;s events
                </h3>
                <CodeBlock
                  code={streamEventsText(workbenchEvents)}
                  language="plaintext"
                  copyLabel="Copy the workbench server events"
                  wrap
                />
              </section>
            )}
            <section aria-label="Gateway response" className="flex flex-col gap-1">
              {run.response?.kind === 'stream' && (
                <h3 className="text-xs font-medium">From the gateway</h3>
              )}
              <CodeBlock
                code={responseText(run.response)}
                language={run.response?.kind === 'json' ? 'json' : 'plaintext'}
                copyLabel="Copy the response"
                wrap
              />
            </section>
            {events.length > 0 && (
              <details className="text-xs">
                <summary className="cursor-pointer">Arrival times</summary>
                <ol className="mt-1 max-h-64 overflow-y-auto font-mono">
                  {events.map((event, index) => (
                    <li key={index} className="truncate">
                      +{event.atMs} ms{' '}
                      {workbenchEvents.includes(event) ? `[workbench server: ${event.event}] ` : ''}
                      {event.data}
                    </li>
                  ))}
                </ol>
              </details>
            )}
          </Tabs.Content>
        </Tabs.Root>
      )}
    </PlaygroundDialog>
  );
}
