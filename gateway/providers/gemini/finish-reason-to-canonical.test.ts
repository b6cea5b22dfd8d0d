/** Every documented Gemini finish reason → its canonical reason, with the vendor's word kept. */
import type { FinishReason } from '../../canonical/model';
import { mapBlockReason, mapFinishReason } from './finish-reason-to-canonical';

describe('Gemini finish reasons', () => {
  it.each<[string, FinishReason]>([
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['SPII', 'content_filter'],
    ['IMAGE_SAFETY', 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', 'error'],
    ['UNEXPECTED_TOOL_CALL', 'error'],
    ['OTHER', 'stop'],
    ['LANGUAGE', 'stop'],
    ['SOMETHING_NEW', 'stop'],
  ])('%s → %s', (raw, unified) => {
    expect(mapFinishReason(raw, false)).toEqual({ unified, raw });
  });

  it('says tool_calls for STOP when the answer made calls, and keeps other reasons', () => {
    expect(mapFinishReason('STOP', true)).toEqual({ unified: 'tool_calls', raw: 'STOP' });
    expect(mapFinishReason('MAX_TOKENS', true)).toEqual({ unified: 'length', raw: 'MAX_TOKENS' });
    expect(mapFinishReason('MALFORMED_FUNCTION_CALL', true)).toEqual({
      unified: 'error',
      raw: 'MALFORMED_FUNCTION_CALL',
    });
  });

  it('keeps no raw reason when the vendor gave none', () => {
    expect(mapFinishReason(undefined, false)).toEqual({ unified: 'stop', raw: null });
  });

  it('reads every prompt block reason as content_filter', () => {
    expect(mapBlockReason('OTHER')).toEqual({ unified: 'content_filter', raw: 'OTHER' });
  });
});
