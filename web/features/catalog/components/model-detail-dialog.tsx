import { Dialog } from 'radix-ui';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { CatalogModel } from '../../../../contract/workbench-api';
import { Badge } from '../../../components/badge';
import { CopyButton } from '../../../components/copy-button';
import { formatContextLength, formatDateTime, formatPricePerMillion } from '../../../lib/format';
import { buildCurlRequest, unknownFields } from '../model-details';
import { ProvidersSection } from './providers-section';
import { VariantBadge } from './variant-badge';
import { DialogCloseButton } from '../../../components/dialog-close';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-zinc-600 dark:text-zinc-400">{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </>
  );
}

function CodeBlock({ label, text }: { label: string; text: string }) {
  return (
    <section className="flex flex-col gap-1">
      <div className="flex items-center justify-between gap-2">
        <h3 className="text-sm font-semibold">{label}</h3>
        <CopyButton text={text} label={`Copy ${label.toLowerCase()}`} />
      </div>
      <pre
        tabIndex={0}
        className="max-h-72 overflow-auto rounded-md bg-zinc-100 p-2 font-mono text-xs leading-relaxed dark:bg-zinc-900"
      >
        {text}
      </pre>
    </section>
  );
}

function List({ values }: { values: string[] }) {
  if (values.length === 0)
    return <span className="text-zinc-600 dark:text-zinc-400">none listed</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {values.map((value) => (
        <Badge key={value} className="font-mono">
          {value}
        </Badge>
      ))}
    </span>
  );
}

/** Everything known about one model: its fields, unknown raw fields, raw JSON and a curl call. */
export function ModelDetailDialog({
  model,
  missingId,
  gatewayBaseUrl,
  onClose,
  onCloseAutoFocus,
}: {
  model: CatalogModel | null;
  /** A `?model=` id the catalog does not have, so the panel can say so. */
  missingId: string | null;
  gatewayBaseUrl: string | undefined;
  onClose(): void;
  /**
   * Where the focus goes once the panel closes. The panel opens from the URL, not from a trigger
   * Radix knows, so without this the focus would land on the page's body.
   */
  onCloseAutoFocus?(event: Event): void;
}) {
  const open = model !== null || missingId !== null;
  const extraFields = model ? unknownFields(model.raw) : [];
  return (
    <Dialog.Root open={open} onOpenChange={(next) => !next && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-zinc-950/40 data-[state=open]:animate-in" />
        <Dialog.Content
          onCloseAutoFocus={onCloseAutoFocus}
          className="fixed inset-y-0 right-0 z-50 flex w-full max-w-2xl flex-col overflow-hidden border-l border-zinc-200 bg-white shadow-xl outline-none dark:border-zinc-800 dark:bg-zinc-950"
        >
          {model ? (
            <>
              <div className="flex items-start justify-between gap-3 border-b border-zinc-200 p-4 dark:border-zinc-800">
                <div className="min-w-0">
                  <Dialog.Title className="flex flex-wrap items-center gap-2 text-lg font-semibold">
                    {model.name || model.id}
                    <VariantBadge variant={model.variant} />
                  </Dialog.Title>
                  <Dialog.Description className="mt-0.5 flex flex-wrap items-center gap-2">
                    <span className="font-mono text-sm break-all select-all">{model.id}</span>
                  </Dialog.Description>
                </div>
                <DialogCloseButton />
              </div>
              <div className="flex flex-1 flex-col gap-4 overflow-y-auto p-4">
                <div className="flex flex-wrap gap-2">
                  {/* The visible words are the start of the accessible name (WCAG 2.5.3). */}
                  <CopyButton text={model.id} label="Copy model id">
                    Copy model id
                  </CopyButton>
                  <Link
                    to={`/playground?model=${encodeURIComponent(model.id)}`}
                    className="inline-flex h-7 items-center rounded-md bg-sky-700 px-2 text-xs font-medium text-white hover:bg-sky-800 dark:bg-sky-500 dark:text-zinc-950 dark:hover:bg-sky-400"
                  >
                    Try in playground
                  </Link>
                </div>
                {model.description && (
                  <p className="text-sm whitespace-pre-line">{model.description}</p>
                )}
                <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1.5 text-sm">
                  <Field label="Id">
                    <span className="font-mono">{model.id}</span>
                  </Field>
                  <Field label="Name">{model.name || '—'}</Field>
                  <Field label="Author">{model.author || '—'}</Field>
                  <Field label="Variant">
                    {model.variant ? `:${model.variant}` : 'base model'}
                  </Field>
                  <Field label="Created">{formatDateTime(model.created, 'seconds')}</Field>
                  <Field label="Context length">
                    {formatContextLength(model.context_length)}
                    {model.context_length !== null && (
                      <span className="text-zinc-600 dark:text-zinc-400">
                        {' '}
                        ({model.context_length.toLocaleString('en-US')} tokens)
                      </span>
                    )}
                  </Field>
                  <Field label="Max output">
                    {formatContextLength(model.max_completion_tokens)}
                    {model.max_completion_tokens !== null && (
                      <span className="text-zinc-600 dark:text-zinc-400">
                        {' '}
                        ({model.max_completion_tokens.toLocaleString('en-US')} tokens per answer)
                      </span>
                    )}
                  </Field>
                  <Field label="Prompt price">
                    {formatPricePerMillion(model.prompt_price)} per million tokens
                    {model.prompt_price !== null && (
                      <span className="font-mono text-xs text-zinc-600 dark:text-zinc-400">
                        {' '}
                        ({model.prompt_price} per token)
                      </span>
                    )}
                  </Field>
                  <Field label="Completion price">
                    {formatPricePerMillion(model.completion_price)} per million tokens
                    {model.completion_price !== null && (
                      <span className="font-mono text-xs text-zinc-600 dark:text-zinc-400">
                        {' '}
                        ({model.completion_price} per token)
                      </span>
                    )}
                  </Field>
                  <Field label="Input">
                    <List values={model.input_modalities} />
                  </Field>
                  <Field label="Output">
                    <List values={model.output_modalities} />
                  </Field>
                  <Field label="Parameters">
                    <List values={model.supported_parameters} />
                  </Field>
                </dl>
                <ProvidersSection model={model} />
                {extraFields.length > 0 && (
                  <section>
                    <h3 className="mb-1 text-sm font-semibold">Other fields</h3>
                    <p className="mb-1 text-xs text-zinc-600 dark:text-zinc-400">
                      Fields the workbench does not know yet (the catalog’s fields are still
                      changing).
                    </p>
                    <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 font-mono text-xs">
                      {extraFields.map((field) => (
                        <Field key={field.path} label={field.path}>
                          {JSON.stringify(field.value)}
                        </Field>
                      ))}
                    </dl>
                  </section>
                )}
                <CodeBlock label="Curl request" text={buildCurlRequest(model, gatewayBaseUrl)} />
                <p className="-mt-3 text-xs text-zinc-600 dark:text-zinc-400">
                  Set <code className="font-mono">GATEWAY_API_KEY</code> in your shell first; keep
                  keys server side.
                </p>
                <CodeBlock label="Raw JSON" text={JSON.stringify(model.raw, null, 2)} />
              </div>
            </>
          ) : (
            <div className="flex flex-col gap-3 p-4">
              <Dialog.Title className="text-lg font-semibold">
                Model not in the catalog
              </Dialog.Title>
              <Dialog.Description className="text-sm">
                The catalog has no model <span className="font-mono">{missingId}</span>. It may have
                been renamed or removed.
              </Dialog.Description>
              <Dialog.Close asChild>
                <button
                  type="button"
                  className="self-start rounded-md border border-zinc-300 px-3 py-1 text-sm dark:border-zinc-700"
                >
                  Close
                </button>
              </Dialog.Close>
            </div>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
