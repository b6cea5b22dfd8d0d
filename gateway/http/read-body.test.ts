import { nestingDepth } from './read-body';

describe('nestingDepth', () => {
  it.each([
    ['1', 0],
    ['{}', 1],
    ['{"a":[1,{"b":[]}]}', 4],
    ['["[[[[", "{{{"]', 1],
    ['["a\\\\", [["\\"[[["]]]', 3],
    ['{"a":"\\\\\\"{{"}', 1],
    ['"[[["', 0],
  ])('of %s is %i', (text, depth) => {
    JSON.parse(text); // every case is valid JSON, as the function assumes
    expect(nestingDepth(text)).toBe(depth);
  });
});
