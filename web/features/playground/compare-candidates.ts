/**
 * The models Compare offers: only those that can run the conversation as it is — chat models
 * (an embedding model cannot answer it), taking images when it carries some, and tools when
 * some are defined — so a compared column never fails for a reason known in advance.
 */
import type { CatalogModel } from '../../../contract/workbench-api';
import { isEmbeddingModel } from './embeddings/similarity';
import { supportsImages, supportsTools } from './parameters';

export function compareCandidates(
  models: CatalogModel[],
  task: { images: boolean; tools: boolean },
): CatalogModel[] {
  return models.filter(
    (model) =>
      !isEmbeddingModel(model) &&
      (!task.images || supportsImages(model)) &&
      (!task.tools || supportsTools(model)),
  );
}
