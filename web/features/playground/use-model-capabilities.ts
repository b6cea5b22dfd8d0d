/**
 * What the chosen model can take, from the catalog: the model in use (`defaultModelOf` until
 * one is chosen), whether it is an embedding model, takes tools or images, and why not.
 */
import { useCallback, useMemo } from 'react';
import type { CatalogModel } from '../../../contract/workbench-api';
import { isEmbeddingModel } from './embeddings/similarity';
import { supportsImages, supportsTools } from './parameters';

/**
 * The model used until one is chosen: the catalog's first chat model that takes tools, so the
 * first screen has every control enabled; else the first chat model, else the first model.
 */
export function defaultModelOf(models: CatalogModel[]): string {
  const chat = models.filter((model) => !isEmbeddingModel(model));
  return (chat.find(supportsTools) ?? chat[0] ?? models[0])?.id ?? '';
}
import type { ConversationMessage } from './playground-types';

/**
 * Why the image control is off for `model`, or null when it takes images. While the catalog
 * loads, a model not found yet is not "missing": it is being looked up.
 */
export function imagesReasonOf(input: {
  model: string;
  catalogModel: CatalogModel | undefined;
  catalogKnown: boolean;
}): string | null {
  const { model, catalogModel, catalogKnown } = input;
  if (supportsImages(catalogModel)) return null;
  if (catalogModel) return `${model} does not take image input.`;
  if (!model) return 'Choose a model that takes image input first.';
  return catalogKnown
    ? `${model} is not in the catalog, so whether it takes images is unknown.`
    : `Looking ${model} up in the catalog: images can be added once it says the model takes them.`;
}

export interface ModelCapabilitiesInput {
  /** The catalog's models; undefined while it loads or when it failed. */
  catalogModels: CatalogModel[] | undefined;
  /** Whether the catalog has loaded (a model missing from it is then really missing). */
  catalogKnown: boolean;
  /** The session's chosen model, empty until one is chosen. */
  chosenModel: string;
  messages: ConversationMessage[];
}

export function useModelCapabilities(input: ModelCapabilitiesInput) {
  const { catalogModels, catalogKnown, chosenModel, messages } = input;
  const models = useMemo(() => catalogModels ?? [], [catalogModels]);
  const findModel = useCallback((id: string) => models.find((model) => model.id === id), [models]);
  // Until a model is chosen, the default is used (and becomes the choice on send).
  const model = chosenModel || defaultModelOf(models);
  const catalogModel = findModel(model);
  const embeddingModel = isEmbeddingModel(catalogModel);
  const toolsSupported =
    supportsTools(catalogModel) || (catalogKnown && !catalogModel && model !== '');
  const imagesSupported = supportsImages(catalogModel);
  const imagesReason = imagesReasonOf({ model, catalogModel, catalogKnown });
  // Images already in the conversation go with every request: a model that takes none refuses it.
  const conversationImages = messages.reduce((count, message) => count + message.images.length, 0);
  const conversationImagesNote =
    catalogModel && !imagesSupported && conversationImages > 0
      ? `Earlier turns of this conversation carry ${conversationImages === 1 ? 'an image' : `${conversationImages} images`}, which ${model} does not take: sending it would be refused. Choose a model that takes images, or start a new conversation.`
      : null;
  return {
    models,
    findModel,
    model,
    catalogModel,
    embeddingModel,
    toolsSupported,
    imagesSupported,
    imagesReason,
    conversationImagesNote,
  };
}

export type ModelCapabilities = ReturnType<typeof useModelCapabilities>;
