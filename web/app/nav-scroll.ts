/**
 * Where a horizontally scrolling list must be scrolled to so that one of its items is fully in
 * view: the current `scrollLeft` when it already is, else the least scroll that shows it (its
 * start when it is wider than the list). Positions are the browser's client rectangles.
 */
export function scrollLeftToShow(
  list: { left: number; width: number },
  scrollLeft: number,
  item: { left: number; width: number },
): number {
  const start = item.left - list.left + scrollLeft;
  const end = start + item.width;
  // Whole pixels, rounded towards showing all of the item: browsers round scrollLeft.
  if (start < scrollLeft || item.width > list.width) return Math.max(0, Math.floor(start));
  if (end > scrollLeft + list.width) return Math.ceil(end - list.width);
  return scrollLeft;
}
