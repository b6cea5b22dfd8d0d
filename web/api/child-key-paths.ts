/** The BFF's paths for an account profile's child keys, with every part escaped. */

/** `/api/profiles/:profile/child-keys` */
export function childKeysPath(profile: string): string {
  return `/api/profiles/${encodeURIComponent(profile)}/child-keys`;
}

/** `/api/profiles/:profile/child-keys/:id`, and below it (`events`, `rotation`, …). */
export function childKeyPath(profile: string, id: string, ...below: string[]): string {
  return [childKeysPath(profile), encodeURIComponent(id), ...below].join('/');
}
