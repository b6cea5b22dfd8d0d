import { entriesBeyond, listAllows, patternMatches, patternProblem } from './model-patterns';

describe('model patterns', () => {
  it('matches ids exactly, and * as any run of characters', () => {
    expect(patternMatches('sim/chat-standard', 'sim/chat-standard')).toBe(true);
    expect(patternMatches('sim/chat-standard', 'sim/chat-standard:free')).toBe(false);
    expect(patternMatches('sim/chat-*', 'sim/chat-standard')).toBe(true);
    expect(patternMatches('sim/chat-*', 'sim/reasoner-large')).toBe(false);
    expect(patternMatches('*:free', 'sim/chat-standard:free')).toBe(true);
    expect(patternMatches('*:free', 'sim/chat-standard')).toBe(false);
    expect(patternMatches('anthropic/*', 'anthropic/claude-sonnet-4.5')).toBe(true);
    // A dot in a pattern is a dot, not "any character".
    expect(patternMatches('a.b', 'axb')).toBe(false);
  });

  it('allows every model with no list, and only matching ones with one', () => {
    expect(listAllows(null, 'x/y')).toBe(true);
    expect(listAllows([], 'x/y')).toBe(true);
    expect(listAllows(['sim/chat-*', '*:free'], 'sim/echo-mini:free')).toBe(true);
    expect(listAllows(['sim/chat-*', '*:free'], 'sim/reasoner-large')).toBe(false);
  });

  it('names the entries of a child that its parent does not cover', () => {
    expect(entriesBeyond(['sim/chat-standard', 'sim/chat-s*'], ['sim/chat-*'])).toEqual([]);
    expect(entriesBeyond(['*'], ['*:free'])).toEqual(['*']);
    expect(entriesBeyond(['a*'], ['a*b'])).toEqual(['a*']);
    expect(entriesBeyond(['sim/reasoner-large'], ['sim/chat-*'])).toEqual(['sim/reasoner-large']);
    // A parent without a list allows everything; a child without one uses its parent's.
    expect(entriesBeyond(['anything/*'], null)).toEqual([]);
    expect(entriesBeyond([], ['sim/chat-*'])).toEqual([]);
  });

  it('says what is wrong with an entry', () => {
    expect(patternProblem('sim/chat-*')).toBeNull();
    expect(patternProblem('')).toMatch(/empty/);
    expect(patternProblem('sim chat')).toMatch(/characters no model id has/);
    expect(patternProblem('x'.repeat(201))).toMatch(/longer than 200/);
  });
});
