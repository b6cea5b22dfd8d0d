import { scrollLeftToShow } from './nav-scroll';

describe('scrollLeftToShow', () => {
  const list = { left: 12, width: 366 };

  it('leaves a list alone when the item is in view', () => {
    expect(scrollLeftToShow(list, 0, { left: 100, width: 80 })).toBe(0);
  });

  it('scrolls just far enough to show an item cut off at the end', () => {
    // "Activity" at 330–406 on a list ending at 378: 28 px more.
    expect(scrollLeftToShow(list, 0, { left: 330, width: 76 })).toBe(28);
  });

  it('rounds to whole pixels towards showing all of the item', () => {
    expect(scrollLeftToShow(list, 0, { left: 330.4, width: 75.8 })).toBe(29);
  });

  it('scrolls back to an item cut off at the start', () => {
    expect(scrollLeftToShow(list, 40, { left: 2, width: 70 })).toBe(30);
  });
});
