import type { ChildKeyEvent } from '../../../contract/workbench-api';
import { describeAction, describeActor, describeChanges } from './child-key-events';

const event = (overrides: Partial<ChildKeyEvent>): ChildKeyEvent => ({
  id: 1,
  key_id: 'key_child',
  actor: 'key_account',
  action: 'update',
  changes: {},
  note: null,
  created_at: 1_760_000_000,
  ...overrides,
});

describe('key events in words', () => {
  it('names the action, reading a change of disabled alone as Disabled or Enabled', () => {
    expect(describeAction(event({ changes: { disabled: { old: false, new: true } } }))).toBe(
      'Disabled',
    );
    expect(describeAction(event({ changes: { disabled: { old: true, new: false } } }))).toBe(
      'Enabled',
    );
    expect(
      describeAction(
        event({ changes: { disabled: { old: true, new: false }, name: { old: 'a', new: 'b' } } }),
      ),
    ).toBe('Changed');
    expect(describeAction(event({ action: 'rotate' }))).toBe('Rotated (new secret)');
    expect(describeAction(event({ action: 'something_new' }))).toBe('something_new');
  });

  it('names the actor', () => {
    expect(describeActor('key_account', 'key_account')).toBe('the account key');
    expect(describeActor('cli', 'key_account')).toBe('the gateway’s command line');
    expect(describeActor('admin', null)).toBe('the operator');
    expect(describeActor('key_other', 'key_account')).toBe('key key_other');
    // A key the account lists is named, not shown by its internal id.
    const names = new Map([['key_other', 'ci-bot']]);
    expect(describeActor('key_other', 'key_account', names)).toBe('key “ci-bot”');
    expect(
      describeChanges(
        event({ action: 'create', changes: { parent_id: { old: null, new: 'key_other' } } }),
        names,
      ),
    ).toEqual([{ field: 'parent_id', label: 'Parent key', from: null, to: '“ci-bot”' }]);
  });

  it('gives each field’s value before and after in the page’s formats', () => {
    expect(
      describeChanges(
        event({
          changes: {
            limit_usd: { old: 0.5, new: 0.75 },
            expires_at: { old: 1_893_456_000, new: null },
            kind: { old: 'allocated_child', new: 'allocated_child' },
            custom: { old: [1], new: { a: 1 } },
          },
        }),
      ),
    ).toEqual([
      { field: 'limit_usd', label: 'Limit', from: '$0.50', to: '$0.75' },
      {
        field: 'expires_at',
        label: 'Expiry',
        from: expect.stringMatching(/^20\d\d-/),
        to: 'never',
      },
      {
        field: 'kind',
        label: 'Kind',
        from: 'Allocated child key',
        to: 'Allocated child key',
      },
      { field: 'custom', label: 'custom', from: '[1]', to: '{"a":1}' },
    ]);
    // A new key's fields have no "before".
    expect(
      describeChanges(event({ action: 'create', changes: { name: { old: null, new: 'bot' } } })),
    ).toEqual([{ field: 'name', label: 'Name', from: null, to: '“bot”' }]);
  });
});
