import { foldedPreview } from './long-text';

const limits = { characters: 100, lines: 5 };

describe('foldedPreview', () => {
  it('leaves a short text whole', () => {
    expect(foldedPreview('Hello there', limits)).toBeNull();
    expect(foldedPreview('x'.repeat(100), limits)).toBeNull();
  });

  it('cuts a long text at the character limit, on a word boundary when one is near', () => {
    const text = `${'word '.repeat(40)}end`;
    const preview = foldedPreview(text, limits);
    expect(preview).not.toBeNull();
    expect(preview!.length).toBeLessThanOrEqual(100);
    expect(preview!.endsWith('word')).toBe(true);
  });

  it('cuts at the line limit before the character limit', () => {
    const text = ['1', '2', '3', '4', '5', '6', '7'].join('\n');
    expect(foldedPreview(text, limits)).toBe('1\n2\n3\n4\n5');
  });
});
