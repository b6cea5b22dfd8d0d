import { defaultModelOf, imagesReasonOf } from './use-model-capabilities';
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

describe('imagesReasonOf', () => {
  const vision = catalogModel({ id: 'sim/vision', input_modalities: ['text', 'image'] });

  it('does not call a model missing while the catalog is still loading', () => {
    const loading = imagesReasonOf({
      model: 'sim/vision',
      catalogModel: undefined,
      catalogKnown: false,
    });
    expect(loading).not.toMatch(/not in the catalog/);
    expect(loading).toMatch(/^Looking sim\/vision up in the catalog/);
  });

  it('says a model is missing once the catalog has loaded without it', () => {
    expect(imagesReasonOf({ model: 'sim/gone', catalogModel: undefined, catalogKnown: true })).toBe(
      'sim/gone is not in the catalog, so whether it takes images is unknown.',
    );
  });

  it('has no reason for a model that takes images, and one for a model that does not', () => {
    expect(
      imagesReasonOf({ model: vision.id, catalogModel: vision, catalogKnown: true }),
    ).toBeNull();
    expect(
      imagesReasonOf({ model: textModel.id, catalogModel: textModel, catalogKnown: true }),
    ).toBe(`${textModel.id} does not take image input.`);
  });
});
