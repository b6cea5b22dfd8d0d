import type { CanonicalEvent, CanonicalMessage } from '../canonical/model';
import { sealReasoning, sealSignature } from '../canonical/reasoning-signature';
import { canonicalRequest } from '../../testing/upstreams/canonical';
import { ReasoningMemory } from './reasoning-memory';

const thought = (text: string, signature?: string): CanonicalEvent => ({
  type: 'reasoning-delta',
  text,
  ...(signature !== undefined && { signature: sealSignature('ant', signature) }),
});
const call = (id: string): CanonicalEvent => ({
  type: 'tool-call',
  id,
  name: 'get_weather',
  arguments: '{}',
});

/** An answer of a thought in two pieces, some text, then a call. */
function answer(memory: ReasoningMemory, keyId: string, callId: string, text = 'Think. ') {
  const see = memory.recorder(keyId);
  for (const event of [thought(text), thought('Then call.', 'sig-1'), call(callId)]) see(event);
}

/** The assistant turn as OpenCode sends it back: the reasoning's text only, then the call. */
const textOnlyTurn = (callId: string): CanonicalMessage => ({
  role: 'assistant',
  parts: [
    { type: 'reasoning', text: 'Think. Then call.' },
    { type: 'text', text: 'Let me look.' },
    { type: 'tool_call', id: callId, name: 'get_weather', arguments: '{}' },
  ],
});

const withTurn = (turn: CanonicalMessage) =>
  canonicalRequest({
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'Weather?' }] }, turn],
  });

describe('the reasoning the gateway keeps for tool calls', () => {
  it('gives a call back the signed block that preceded it, first in its turn', () => {
    const memory = new ReasoningMemory();
    answer(memory, 'key_a', 'call_1');
    const restored = memory.restore('key_a', withTurn(textOnlyTurn('call_1')));
    expect(restored.messages[1]!.parts).toEqual([
      { type: 'reasoning', text: 'Think. Then call.', signature: 'sig-1', providerId: 'ant' },
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{}' },
    ]);
  });

  it('keeps each key to its own calls, and leaves a turn it knows nothing of as sent', () => {
    const memory = new ReasoningMemory();
    answer(memory, 'key_a', 'call_1');
    const request = withTurn(textOnlyTurn('call_1'));
    expect(memory.restore('key_b', request)).toBe(request);
    const unknown = withTurn(textOnlyTurn('call_2'));
    expect(memory.restore('key_a', unknown)).toBe(unknown);
  });

  it('leaves a turn alone that already carries a signed block', () => {
    const memory = new ReasoningMemory();
    answer(memory, 'key_a', 'call_1');
    const signed = withTurn({
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'Own.', signature: 'sig-own', providerId: 'gem' },
        { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{}' },
      ],
    });
    expect(memory.restore('key_a', signed)).toBe(signed);
  });

  it('strips to its text a block sealed for another key', () => {
    const memory = new ReasoningMemory();
    const request = withTurn({
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'T', signature: 's', providerId: 'ant', keyId: 'key_b' },
        { type: 'tool_call', id: 'call_9', name: 'get_weather', arguments: '{}' },
      ],
    });
    expect(memory.restore('key_a', request).messages[1]!.parts[0]).toEqual({
      type: 'reasoning',
      text: 'T',
    });
  });

  it('takes another key’s sealed items out of a Responses body that goes on as sent', () => {
    const memory = new ReasoningMemory();
    const mine = sealReasoning({ text: 'a', encrypted: 'gw1:oai:x' }, 'key_a');
    const theirs = sealReasoning({ text: 'b', encrypted: 'gw1:oai:y' }, 'key_b');
    const input = [
      { type: 'reasoning', summary: [], encrypted_content: mine },
      { type: 'reasoning', summary: [], encrypted_content: theirs },
      { type: 'reasoning', summary: [], encrypted_content: 'raw-from-openai' },
    ];
    const request = canonicalRequest({
      inbound: { form: 'responses', body: { input }, unmappedFields: [] },
    });
    expect(memory.restore('key_a', request).inbound!.body.input).toEqual([input[0], input[2]]);
  });

  it('forgets after its time, and keeps within its bytes per key and in all', () => {
    let now = 0;
    const memory = new ReasoningMemory(
      { maxBytes: 100, maxBytesPerKey: 60, ttlMs: 1_000 },
      () => now,
    );
    const restoredFor = (keyId: string, id: string) => {
      const first = memory.restore(keyId, withTurn(textOnlyTurn(id))).messages[1]!.parts[0]!;
      return first.type === 'reasoning' && first.signature === 'sig-1';
    };
    // Each answer keeps 'Think. Then call.' and 'sig-1': 22 bytes.
    answer(memory, 'key_a', 'call_1');
    answer(memory, 'key_a', 'call_2');
    answer(memory, 'key_a', 'call_3');
    expect(memory.size).toBeLessThanOrEqual(60);
    expect(restoredFor('key_a', 'call_1')).toBe(false);
    expect(restoredFor('key_a', 'call_3')).toBe(true);
    answer(memory, 'key_b', 'call_1');
    answer(memory, 'key_c', 'call_1');
    expect(memory.size).toBeLessThanOrEqual(100);
    now = 1_001;
    expect(restoredFor('key_c', 'call_1')).toBe(false);
  });

  it('keeps nothing for reasoning no provider signed', () => {
    const memory = new ReasoningMemory();
    const see = memory.recorder('key_a');
    for (const event of [thought('Plain text reasoning.'), call('call_1')]) see(event);
    expect(memory.size).toBe(0);
  });
});
