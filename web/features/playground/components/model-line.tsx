/**
 * The model line: the model to talk to, the API to send through, Compare and the models compared
 * with, and what the chosen model can take (its capability badges).
 */
import type { CatalogModel, InferenceApi } from '../../../../contract/workbench-api';
import { Badge } from '../../../components/badge';
import { Button } from '../../../components/button';
import { ErrorPanel } from '../../../components/error-panel';
import { parseToolsText } from '../build-request';
import { compareCandidates } from '../compare-candidates';
import type { PlaygroundAction } from '../conversation-state';
import type { ModelCapabilities } from '../use-model-capabilities';
import type { PlaygroundSession } from '../playground-types';
import { ApiChoice } from './api-choice';
import { ModelCombobox } from './model-combobox';

export interface ModelLineProps {
  capabilities: ModelCapabilities;
  /** The catalog query: while it loads and when it failed. */
  catalog: { isPending: boolean; isError: boolean; error: unknown; refetch(): Promise<unknown> };
  api: InferenceApi;
  onApiChange(api: InferenceApi): void;
  session: PlaygroundSession;
  dispatch(action: PlaygroundAction): void;
  onModelChosen(model: string): void;
  /** The models the profile's key may use (its balance's `allowed_models`); null list: all. */
  allowedModels: { list: string[] | null; allows(id: string): boolean };
}

export function ModelLine({
  capabilities,
  catalog,
  api,
  onApiChange,
  session,
  dispatch,
  onModelChosen,
  allowedModels,
}: ModelLineProps) {
  const { model, models, embeddingModel } = capabilities;
  const onlySome = allowedModels.list?.join(', ');
  return (
    <section
      aria-label="Model choice"
      className="flex flex-col gap-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
    >
      {catalog.isError && (
        <ErrorPanel
          what="Loading the catalog"
          error={catalog.error}
          onRetry={() => void catalog.refetch()}
        />
      )}
      <div className="flex flex-wrap items-end gap-3">
        <ModelCombobox
          label="Model"
          value={model}
          models={models}
          onChange={onModelChosen}
          placeholder={catalog.isPending ? 'Loading the catalog…' : 'Search models…'}
          className="min-w-0 flex-1 basis-72"
        />
        {!embeddingModel && <ApiChoice value={api} onChange={onApiChange} />}
        <label className="flex h-9 items-center gap-2 text-sm" hidden={embeddingModel}>
          <input
            type="checkbox"
            checked={session.compareEnabled}
            onChange={(event) =>
              dispatch({ type: 'compareToggled', enabled: event.target.checked })
            }
            className="size-4 accent-sky-700"
          />
          Compare
        </label>
      </div>
      {onlySome && (
        <p role="note" className="text-xs text-zinc-600 dark:text-zinc-400">
          {model && !allowedModels.allows(model)
            ? `This profile's key may not use ${model}: it allows only ${onlySome}, and the gateway would refuse it (403). Choose one of those.`
            : `This profile's key may use only ${onlySome}: other models are not listed.`}
        </p>
      )}
      <CapabilityBadges capabilities={capabilities} catalogPending={catalog.isPending} />
      {session.compareEnabled && !embeddingModel && (
        <ComparePickers
          models={compareCandidates(models, {
            images: session.messages.some((message) => message.images.length > 0),
            tools: (parseToolsText(session.toolsText).tools?.length ?? 0) > 0,
          })}
          session={session}
          dispatch={dispatch}
        />
      )}
    </section>
  );
}

function CapabilityBadges({
  capabilities,
  catalogPending,
}: {
  capabilities: ModelCapabilities;
  catalogPending: boolean;
}) {
  const { model, catalogModel, embeddingModel, toolsSupported, imagesSupported } = capabilities;
  return (
    <div className="flex flex-wrap gap-1.5 text-xs">
      {embeddingModel && <Badge tone="sky">embeddings</Badge>}
      {catalogModel && !embeddingModel && (
        <>
          <Badge tone={toolsSupported ? 'violet' : 'neutral'}>
            {toolsSupported ? 'tools' : 'no tools'}
          </Badge>
          <Badge tone={imagesSupported ? 'sky' : 'neutral'}>
            {imagesSupported ? 'image input' : 'text input only'}
          </Badge>
        </>
      )}
      {!catalogModel && model && !catalogPending && <Badge tone="amber">not in the catalog</Badge>}
    </div>
  );
}

/** The second and third models of a comparison; the third appears once the second is chosen. */
function ComparePickers({
  models,
  session,
  dispatch,
}: {
  models: CatalogModel[];
  session: PlaygroundSession;
  dispatch(action: PlaygroundAction): void;
}) {
  return (
    <div className="flex flex-col gap-2 border-t border-zinc-200 pt-2 dark:border-zinc-800">
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        Send runs the same conversation and parameters on every model at once.
      </p>
      <div className="flex flex-wrap items-start gap-3">
        {[0, 1].map((index) =>
          index <= session.compareModels.length ? (
            <div key={index} className="flex min-w-0 flex-1 basis-60 items-start gap-1">
              <ModelCombobox
                label={index === 0 ? 'Compare with' : 'And with'}
                value={session.compareModels[index] ?? ''}
                models={models}
                onChange={(id) => dispatch({ type: 'compareModelChosen', index, model: id })}
                placeholder="Search models…"
                className="min-w-0 flex-1"
              />
              {session.compareModels[index] && (
                <Button
                  size="small"
                  variant="ghost"
                  className="mt-5"
                  aria-label={`Remove ${session.compareModels[index]} from the comparison`}
                  onClick={() => dispatch({ type: 'compareModelRemoved', index })}
                >
                  ✕
                </Button>
              )}
            </div>
          ) : null,
        )}
      </div>
    </div>
  );
}
