/**
 * Cleaning an upstream's error message: keys (whole, partly masked, or the gateway's own), internal
 * addresses and server file paths go; what helps the client (limits, API paths, model names) stays.
 */
import { cleanUpstreamMessage } from './clean-message';

describe('an upstream error message', () => {
  it.each([
    ['a key shown as its first and last characters', 'provided: sk-upstr****XYZ1.', 'sk-upstr'],
    [
      "OpenAI's own masked key",
      'Incorrect API key provided: sk-proj-' + '*'.repeat(60) + 'yzAB. You can find it elsewhere.',
      'yzAB',
    ],
    ['a masked Anthropic key', 'invalid x-api-key: sk-ant-api03-abc...wxyz', 'wxyz'],
    ['a masked Google key', 'API key not valid: AIzaSyA****Qx9', 'Qx9'],
    ['a masked key of any other shape', 'key up-1234****abcd rejected', 'up-1234'],
    ['the visible end of a masked key', 'key ending ****abcd rejected', 'abcd'],
  ])('masks %s entirely', (_what, message, visible) => {
    const cleaned = cleanUpstreamMessage(message);
    expect(cleaned).toContain('[redacted]');
    expect(cleaned).not.toContain(visible);
    expect(cleaned).not.toContain('*');
  });

  it('drops absolute file paths, keeping the rest of the message', () => {
    expect(
      cleanUpstreamMessage(
        'Backend failed at /srv/app/server.py line 42 (File "/usr/lib/python3.11/site-packages/vllm/serving_chat.py") and C:\\app\\main.py',
      ),
    ).toBe('Backend failed at [path] line 42 (File "[path]") and [path]');
  });

  it('keeps what helps the client: API paths, model names and limits', () => {
    const message =
      'Invalid URL (POST /v1/chat/completion); model gpt-4.1 at /v1/models/gpt-4.1: max_tokens is too large: 9000 > 4096';
    expect(cleanUpstreamMessage(message)).toBe(message);
  });

  it('replaces the gateway’s own upstream key, addresses and key-shaped tokens', () => {
    const secret = 'up-7d3f0c2e-1111-4a4a-9b9b-0123456789ab';
    expect(
      cleanUpstreamMessage(
        `Full: ${secret}, backend http://10.1.2.3:8000/v1/internal at 10.0.0.7:9000, token sk-abcdefgh12345678`,
        [secret],
      ),
    ).toBe('Full: [redacted], backend [address] at [address], token [redacted]');
  });

  it('removes any start of the gateway’s own key from 8 characters on, however the upstream cut it', () => {
    const secret = 'up-7d3f0c2e-1111-4a4a-9b9b-0123456789ab';
    const cleaned = cleanUpstreamMessage(
      `key ${secret.slice(0, 14)}… (${secret.slice(0, 8)}) rejected, again ${secret.slice(0, 9)}...89ab; ${secret}`,
      [secret],
    );
    expect(cleaned).toBe(
      'key [redacted]… ([redacted]) rejected, again [redacted]...89ab; [redacted]',
    );
    // Shorter than that, a run of the key's characters is ordinary text.
    expect(cleanUpstreamMessage('the up-7d3 branch', [secret])).toBe('the up-7d3 branch');
  });
});
