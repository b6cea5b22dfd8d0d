/** For the gateway's tests: a small, valid canonical request, changed only where a test says. */
import type { CanonicalRequest } from '../../gateway/canonical/model';

export const canonicalRequest = (overrides: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  model: 'sim/chat-standard',
  system: null,
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
  maxTokens: 8,
  temperature: null,
  topP: null,
  stop: [],
  seed: null,
  tools: [],
  toolChoice: 'auto',
  stream: false,
  ...overrides,
});
