/**
 * Leaves the single-page app for `path` with a full page load, so everything is asked for again
 * with the new session (or without the old one). Its own module so tests can stand in for it.
 */
export function leavePageTo(path: string): void {
  window.location.assign(path);
}
