import { compactionContext, openCompaction, sealCompaction } from './compaction-envelope';

describe('the compaction envelope', () => {
  it('opens to the summary it sealed, whatever the summary holds', () => {
    const summary = 'Goal: fix the parser.\nDone: tests "green" — ünïcode, emoji 🙂, gwc1: inside.';
    const sealed = sealCompaction(summary);
    expect(sealed.startsWith('gwc1:')).toBe(true);
    expect(sealed).not.toContain(summary);
    expect(openCompaction(sealed)).toEqual({ kind: 'gateway', summary });
  });

  it('tells another vendor content from a broken envelope', () => {
    expect(openCompaction('gAAAAABo-openai-ciphertext')).toEqual({ kind: 'foreign' });
    for (const broken of [
      'gwc1:',
      'gwc1:not base64!',
      `gwc1:${Buffer.from('not json').toString('base64url')}`,
      `gwc1:${Buffer.from('{"summary":7}').toString('base64url')}`,
      sealCompaction('cut short').slice(0, -6),
    ])
      expect(openCompaction(broken)).toEqual({ kind: 'broken' });
  });

  it('gives the model the summary as context', () => {
    expect(compactionContext('The summary.')).toContain('The summary.');
  });
});
