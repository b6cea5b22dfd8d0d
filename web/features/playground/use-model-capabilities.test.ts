import { defaultModelOf } from './use-model-capabilities';
import { catalogModel, textModel, toolModel } from './test-fixtures';

describe('defaultModelOf', () => {
  const embed = catalogModel({ id: 'sim/embed-small', output_modalities: ['embeddings'] });

  it('picks the first chat model that takes tools, whatever comes before it', () => {
    expect(defaultModelOf([embed, textModel, toolModel])).toBe(toolModel.id);
  });

  it('falls back to the first chat model, then to the first model', () => {
    expect(defaultModelOf([embed, textModel])).toBe(textModel.id);
    expect(defaultModelOf([embed])).toBe(embed.id);
    expect(defaultModelOf([])).toBe('');
  });
});
