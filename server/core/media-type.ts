/**
 * A request's `Content-Type`, read once the same way wherever the server looks at it: the media
 * type in lower case, and its charset if one is given.
 */
export function mediaType(header: string | undefined): { type: string; charset: string | null } {
  const [type = '', ...parameters] = (header ?? '').split(';');
  let charset: string | null = null;
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=');
    if (name?.trim().toLowerCase() === 'charset') {
      charset = (value ?? '').trim().replace(/^"|"$/g, '').toLowerCase();
    }
  }
  return { type: type.trim().toLowerCase(), charset };
}
