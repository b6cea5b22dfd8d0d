import { compareChoiceOf, compareParamOf } from './compare-param';

describe('the compare parameter', () => {
  it('is absent when not comparing, and lists the compared models when comparing', () => {
    expect(compareParamOf({ enabled: false, models: ['a/b'] })).toBeNull();
    expect(compareParamOf({ enabled: true, models: [] })).toBe('');
    expect(compareParamOf({ enabled: true, models: ['a/b', 'c/d'] })).toBe('a/b,c/d');
  });

  it('reads back what it wrote, dropping blanks, repeats and models beyond two', () => {
    expect(compareChoiceOf(null)).toBeNull();
    expect(compareChoiceOf('')).toEqual({ enabled: true, models: [] });
    expect(compareChoiceOf('a/b,c/d')).toEqual({ enabled: true, models: ['a/b', 'c/d'] });
    expect(compareChoiceOf(' a/b,,a/b,c/d,e/f')).toEqual({
      enabled: true,
      models: ['a/b', 'c/d'],
    });
  });
});
