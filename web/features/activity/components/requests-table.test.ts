import { describe, expect, it } from 'vitest';
import { formName, shortFormName } from './requests-table';

describe('formName', () => {
  it.each([
    ['chat_completions', 'Chat completions', 'Chat'],
    ['responses', 'Responses', 'Responses'],
    ['embeddings', 'Embeddings', 'Embeddings'],
    ['messages', 'Messages', 'Messages'],
    ['gemini', 'Gemini', 'Gemini'],
  ])('names %s as the gateway docs do', (form, name, short) => {
    expect(formName(form)).toBe(name);
    expect(shortFormName(form)).toBe(short);
  });

  it('shows a form it does not know yet as the gateway wrote it', () => {
    expect(formName('batch_jobs')).toBe('batch_jobs');
  });
});
