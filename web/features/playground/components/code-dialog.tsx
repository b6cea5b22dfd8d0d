/**
 * "Get code": the request as curl, TypeScript and Python with `openai`, and — for the models they
 * fit — the Messages and Gemini forms. Every snippet reads the key from an environment variable.
 */
import { Tabs } from 'radix-ui';
import type { CatalogModel, ChatRequest } from '../../../../contract/workbench-api';
import { codeTargetFit, codeTargets } from '../code-export';
import { defaultKeyVariable } from '../code-export/shared';
import { CodeBlock } from './code-block';
import { PlaygroundDialog } from './playground-dialog';

export function CodeDialog({
  open,
  onOpenChange,
  request,
  gatewayBaseUrl,
  model,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
  request: ChatRequest['request'] | null;
  gatewayBaseUrl: string | null;
  model: CatalogModel | undefined;
}) {
  const baseUrl = gatewayBaseUrl ?? 'https://gateway.example.com';
  return (
    <PlaygroundDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Get code"
      description={`The same request against the gateway at ${baseUrl}. Set ${defaultKeyVariable} in your environment; no snippet contains a key.`}
    >
      {!request ? (
        <p className="text-sm">
          Choose a model and write a message first: the code is built from them.
        </p>
      ) : (
        <Tabs.Root defaultValue="curl" className="flex flex-col gap-3">
          <Tabs.List
            aria-label="Language"
            className="flex flex-wrap gap-1 border-b border-zinc-200 pb-2 dark:border-zinc-800"
          >
            {codeTargets.map((target) => {
              const fit = codeTargetFit(target.id, model, request.model);
              return (
                <Tabs.Trigger
                  key={target.id}
                  value={target.id}
                  disabled={!fit.fits}
                  title={fit.reason ?? undefined}
                  className="rounded-md px-2.5 py-1 text-sm font-medium text-zinc-700 hover:bg-zinc-100 disabled:cursor-not-allowed disabled:opacity-50 data-[state=active]:bg-zinc-900 data-[state=active]:text-white dark:text-zinc-300 dark:hover:bg-zinc-800 dark:data-[state=active]:bg-zinc-100 dark:data-[state=active]:text-zinc-900"
                >
                  {target.label}
                </Tabs.Trigger>
              );
            })}
          </Tabs.List>
          {codeTargets.map((target) => {
            const fit = codeTargetFit(target.id, model, request.model);
            return (
              <Tabs.Content key={target.id} value={target.id} className="min-w-0">
                {fit.fits ? (
                  <div className="flex flex-col gap-1.5">
                    <p className="text-xs text-zinc-600 dark:text-zinc-400">
                      Save as <code className="font-mono">{target.fileName}</code>, then run{' '}
                      <code className="font-mono">{target.howToRun}</code>
                      {target.fileName.endsWith('.mjs')
                        ? ' (Node 20 or later: it is plain JavaScript, no TypeScript tools needed).'
                        : '.'}
                    </p>
                    <CodeBlock
                      code={target.generate({ gatewayBaseUrl: baseUrl, request })}
                      language={target.language === 'typescript' ? 'javascript' : target.language}
                      copyLabel={`Copy ${target.label} code`}
                    />
                  </div>
                ) : (
                  <p className="text-sm">{fit.reason}</p>
                )}
              </Tabs.Content>
            );
          })}
          {codeTargets.some((target) => !codeTargetFit(target.id, model, request.model).fits) && (
            <p className="text-xs text-zinc-500 dark:text-zinc-400">
              {codeTargets
                .map((target) => codeTargetFit(target.id, model, request.model).reason)
                .filter(Boolean)
                .join(' ')}
            </p>
          )}
        </Tabs.Root>
      )}
    </PlaygroundDialog>
  );
}
