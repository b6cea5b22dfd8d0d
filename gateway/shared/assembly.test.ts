import { Assembly } from './assembly';

describe('Assembly', () => {
  it('closes the parts in reverse order, and the rest when one fails to close', async () => {
    const closed: string[] = [];
    const assembly = new Assembly();
    for (const name of ['store', 'budget', 'pipeline'])
      await assembly.add({
        part: name,
        close: () => {
          closed.push(name);
          if (name === 'budget') throw new Error('budget did not close');
        },
      });
    await expect(assembly.close()).rejects.toThrow('budget did not close');
    expect(closed).toEqual(['pipeline', 'budget', 'store']);
  });

  it('closes what was added when a later part fails to assemble', async () => {
    const closed: string[] = [];
    const assembly = new Assembly();
    expect(await assembly.add({ part: 1, close: () => void closed.push('store') })).toBe(1);
    await expect(assembly.add(Promise.reject(new Error('no database')))).rejects.toThrow(
      'no database',
    );
    expect(closed).toEqual(['store']);
  });
});
