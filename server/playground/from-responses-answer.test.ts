/** The Responses answer's reasoning reaches the playground in the chat shape it reads. */
import { completionFromResponse, createResponsesStreamTranslator } from './from-responses-answer';

const response = {
  id: 'resp_1',
  object: 'response' as const,
  created_at: 1,
  model: 'sim/reasoner-large',
  status: 'completed',
  output: [
    { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Think first.' }] },
    { type: 'message', content: [{ type: 'output_text', text: 'Answer.' }] },
  ],
  usage: {
    input_tokens: 5,
    output_tokens: 9,
    total_tokens: 14,
    output_tokens_details: { reasoning_tokens: 4 },
  },
};

function dataOf(lines: string): unknown[] {
  return lines
    .split('\n\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice('data: '.length)) as unknown);
}

describe('reasoning in a Responses answer', () => {
  it('streams the reasoning summary as chat `reasoning` deltas, and its token count', () => {
    const translator = createResponsesStreamTranslator('sim/reasoner-large');
    const delta = translator.translateData(
      JSON.stringify({ type: 'response.reasoning_summary_text.delta', delta: 'Think' }),
    );
    expect(dataOf(delta)).toMatchObject([{ choices: [{ delta: { reasoning: 'Think' } }] }]);
    const end = translator.translateData(JSON.stringify({ type: 'response.completed', response }));
    expect(dataOf(end)).toMatchObject([
      { usage: { completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 4 } } },
    ]);
  });

  it('keeps the reasoning of a whole response beside its answer', () => {
    expect(completionFromResponse(response)).toMatchObject({
      choices: [{ message: { content: 'Answer.', reasoning: 'Think first.' } }],
      usage: { completion_tokens_details: { reasoning_tokens: 4 } },
    });
  });
});
