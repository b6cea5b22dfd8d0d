/**
 * "Get code": the request as curl, TypeScript and Python with `openai` (in the chosen API's
 * form), and — for the models they fit — the Messages and Gemini forms; an embeddings request
 * as curl, TypeScript and Python. Every snippet reads the key from an environment variable.
 */
import { Tabs } from 'radix-ui';
import type {
  CatalogModel,
  ChatRequest,
  EmbeddingsRequest,
  InferenceApi,
} from '../../../../contract/workbench-api';
import { codeTargetFit, codeTargets, embeddingsCodeTargets } from '../code-export';
import { defaultKeyVariable } from '../code-export/shared';
import { CodeBlock } from './code-block';
import { PlaygroundDialog } from './playground-dialog';

/** What the code is for: a conversation sent through one API, or an embeddings request. */
export type CodeSubject =
  | { kind: 'chat'; request: ChatRequest['request']; api: InferenceApi }
  | { kind: 'embeddings'; request: EmbeddingsRequest['request'] };

interface CodeTab {
  id: string;
  label: string;
  language: 'bash' | 'typescript' | 'python';
  fileName: string;
  howToRun: string;
  /** The snippet, or null with `reason` when the target does not fit the model. */
  code: string | null;
  reason: string | null;
}

function tabsOf(subject: CodeSubject, baseUrl: string, model: CatalogModel | undefined): CodeTab[] {
  if (subject.kind === 'embeddings') {
    return embeddingsCodeTargets.map((target) => ({
      ...target,
      code: target.generate({ gatewayBaseUrl: baseUrl, request: subject.request }),
      reason: null,
    }));
  }
  return codeTargets.map((target) => {
    const fit = codeTargetFit(target.id, model, subject.request.model);
    return {
      ...target,
      code: fit.fits
        ? target.generate({ gatewayBaseUrl: baseUrl, request: subject.request, api: subject.api })
        : null,
      reason: fit.reason,
    };
  });
}

export function CodeDialog({
  open,
  onOpenChange,
  subject,
  gatewayBaseUrl,
  model,
}: {
  open: boolean;
  onOpenChange(open: boolean): void;
  subject: CodeSubject | null;
  gatewayBaseUrl: string | null;
  model: CatalogModel | undefined;
}) {
  const baseUrl = gatewayBaseUrl ?? 'https://gateway.example.com';
  const tabs = subject ? tabsOf(subject, baseUrl, model) : [];
  return (
    <PlaygroundDialog
      open={open}
      onOpenChange={onOpenChange}
      title="Get code"
      description={`The same request against the gateway at ${baseUrl}. Set ${defaultKeyVariable} in your environment; no snippet contains a key.`}
    >
      {!subject ? (
        <p className="text-sm">
          Choose a model and write a message first: the code is built from them.
        </p>
      ) : (
        <Tabs.Root defaultValue="curl" className="flex flex-col gap-3">
          <Tabs.List
            aria-label="Language"
            className="flex flex-wrap gap-1 border-b border-zinc-200 pb-2 dark:border-zinc-800"
          >
            {tabs.map((target) => {
              return (
                <Tabs.Trigger
                  key={target.id}
                  value={target.id}
                  disabled={target.code === null}
                  title={target.reason ?? undefined}
                  className="rounded-md px-2.5 py-1 text-sm font-medium text-zinc-700 hover:bg-zinc-100 disabled:cursor-not-allowed disabled:opacity-50 data-[state=active]:bg-zinc-900 data-[state=active]:text-white dark:text-zinc-300 dark:hover:bg-zinc-800 dark:data-[state=active]:bg-zinc-100 dark:data-[state=active]:text-zinc-900"
                >
                  {target.label}
                </Tabs.Trigger>
              );
            })}
          </Tabs.List>
          {tabs.map((target) => {
            return (
              <Tabs.Content key={target.id} value={target.id} className="min-w-0">
                {target.code !== null ? (
                  <div className="flex flex-col gap-1.5">
                    <p className="text-xs text-zinc-600 dark:text-zinc-400">
                      Save as <code className="font-mono">{target.fileName}</code>, then run{' '}
                      <code className="font-mono">{target.howToRun}</code>
                      {target.fileName.endsWith('.mjs')
                        ? ' (Node 20 or later: it is plain JavaScript, no TypeScript tools needed).'
                        : '.'}
                    </p>
                    <CodeBlock
                      code={target.code}
                      language={target.language === 'typescript' ? 'javascript' : target.language}
                      copyLabel={`Copy ${target.label} code`}
                    />
                  </div>
                ) : (
                  <p className="text-sm">{target.reason}</p>
                )}
              </Tabs.Content>
            );
          })}
          {tabs.some((target) => target.code === null) && (
            <p className="text-xs text-zinc-500 dark:text-zinc-400">
              {tabs
                .map((target) => target.reason)
                .filter(Boolean)
                .join(' ')}
            </p>
          )}
        </Tabs.Root>
      )}
    </PlaygroundDialog>
  );
}
