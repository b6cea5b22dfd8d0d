import { changeLines } from './audit-changes';

describe('an audit entry in words', () => {
  it('names only the fields that changed, nested ones by their path', () => {
    expect(
      changeLines(
        { disabled: false, key: { limit_usd: 5, state: 'active', allowed_models: [] } },
        {
          disabled: false,
          key: { limit_usd: 3, state: 'active', allowed_models: ['anthropic/*'] },
        },
      ),
    ).toEqual(['key.limit_usd: 5 → 3', 'key.allowed_models: [] → anthropic/*']);
  });

  it('lists what a creation set and what a removal took away', () => {
    expect(changeLines(null, { kind: 'allocated_child', limit_usd: 10 })).toEqual([
      'kind: allocated_child',
      'limit_usd: 10',
    ]);
    expect(changeLines({ email: 'bob@example.com' }, null)).toEqual([
      'email: bob@example.com → removed',
    ]);
  });
});
