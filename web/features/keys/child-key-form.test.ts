import { nightly, sharedBot } from '../../test/child-keys.test-kit';
import {
  checkCreateForm,
  checkEditForm,
  createFormServerError,
  editFormValuesOf,
  parseExpiryInput,
  parseUsdInput,
  toDateTimeLocal,
} from './child-key-form';

const now = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('child key forms', () => {
  it('reads USD amounts exactly and says what is wrong with the others', () => {
    expect(parseUsdInput('')).toEqual({ value: null });
    expect(parseUsdInput(' $12.50 ')).toEqual({ value: 12.5 });
    expect(parseUsdInput('0.000000001')).toEqual({ value: 1e-9 });
    expect(parseUsdInput('0.0000000001')).toEqual({
      error: 'At most 9 decimals: the gateway counts nano-dollars.',
    });
    // A decimal comma, as the catalog's price filter takes it; "1,000" could be either: asked.
    expect(parseUsdInput('1,5')).toEqual({ value: 1.5 });
    expect(parseUsdInput('$ 0,25')).toEqual({ value: 0.25 });
    expect(parseUsdInput('1,000')).toEqual({
      error:
        '“1,000” could mean 1000 or 1.000: write it without the comma, or with a dot for decimals.',
    });
    expect(parseUsdInput('-1')).toEqual({ error: 'The amount must be 0 or more.' });
    expect(parseUsdInput('1e3')).toEqual({ error: 'Enter an amount in USD, e.g. 12.50.' });
    expect(parseUsdInput('ten')).toEqual({ error: 'Enter an amount in USD, e.g. 12.50.' });
    expect(parseUsdInput('1000000.01')).toEqual({ error: 'At most $1,000,000.' });
  });

  it('reads an expiry in local time, empty as never, and refuses the past', () => {
    const inAnHour = Math.floor(now / 1000) + 3600;
    expect(parseExpiryInput(toDateTimeLocal(inAnHour), now)).toEqual({ value: inAnHour });
    expect(parseExpiryInput('', now)).toEqual({ value: null });
    expect(parseExpiryInput(toDateTimeLocal(Math.floor(now / 1000) - 60), now)).toEqual({
      error: 'The expiry must be in the future.',
    });
    expect(parseExpiryInput('soon', now)).toEqual({
      error: 'Enter a date and time, or leave it empty.',
    });
  });

  it('builds the create request: a limit for allocated children only, optional fields left out', () => {
    const base = { name: ' bot ', limit: '3', expires: '', profileName: '' };
    expect(checkCreateForm({ ...base, kind: 'allocated_child' }, now)).toEqual({
      ok: true,
      value: { kind: 'allocated_child', name: 'bot', limit_usd: 3 },
    });
    expect(checkCreateForm({ ...base, kind: 'shared_child', limit: 'junk' }, now)).toEqual({
      ok: true,
      value: { kind: 'shared_child', name: 'bot' },
    });
    const refused = checkCreateForm(
      { kind: 'allocated_child', name: '', limit: '', expires: '', profileName: '../etc' },
      now,
    );
    expect(refused.ok).toBe(false);
    expect(!refused.ok && Object.keys(refused.errors).sort()).toEqual([
      'limit',
      'name',
      'profileName',
    ]);
    expect(
      checkCreateForm({ ...base, kind: 'shared_child', name: 'x'.repeat(101) }, now),
    ).toMatchObject({ ok: false, errors: { name: 'At most 100 characters.' } });
  });

  it('sends only what changed in the edit form', () => {
    expect(checkEditForm(nightly, editFormValuesOf(nightly), now)).toEqual({ ok: true, value: {} });
    expect(
      checkEditForm(nightly, { ...editFormValuesOf(nightly), limit: '6', expires: '' }, now),
    ).toEqual({ ok: true, value: { limit_usd: 6, expires_at: null } });
    // A shared child has no limit of its own: the field is not read.
    expect(
      checkEditForm(sharedBot, { ...editFormValuesOf(sharedBot), name: 'bot-2', limit: 'x' }, now),
    ).toEqual({ ok: true, value: { name: 'bot-2' } });
  });
});

describe('createFormServerError', () => {
  it('puts a refusal naming a field at that field, under the form’s label', () => {
    expect(
      createFormServerError(
        "'limit_usd' needs $1,000.00 from the account key, which has $20.00 left to give.",
        undefined,
      ),
    ).toEqual({
      field: 'limit',
      message: '“Limit (USD)” needs $1,000.00 from the account key, which has $20.00 left to give.',
    });
    expect(createFormServerError('must be 64 characters or fewer', 'profile_name')).toEqual({
      field: 'profileName',
      message: 'must be 64 characters or fewer',
    });
    expect(createFormServerError('The gateway did not answer.', undefined)).toBeNull();
    expect(createFormServerError('Unknown profile', 'profile')).toBeNull();
  });
});
