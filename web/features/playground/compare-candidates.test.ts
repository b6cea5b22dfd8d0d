import { compareCandidates } from './compare-candidates';
import { catalogModel, textModel, toolModel, visionModel } from './test-fixtures';

const embed = catalogModel({ id: 'sim/embed-small', output_modalities: ['embeddings'] });
const all = [embed, textModel, toolModel, visionModel];
const ids = (task: { images: boolean; tools: boolean }) =>
  compareCandidates(all, task).map((model) => model.id);

describe('compareCandidates', () => {
  it('never offers an embedding model for a conversation', () => {
    expect(ids({ images: false, tools: false })).toEqual([
      textModel.id,
      toolModel.id,
      visionModel.id,
    ]);
  });

  it('offers only models taking images or tools when the conversation needs them', () => {
    expect(ids({ images: true, tools: false })).toEqual([visionModel.id]);
    expect(ids({ images: false, tools: true })).toEqual([toolModel.id, visionModel.id]);
  });
});
