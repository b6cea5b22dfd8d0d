/**
 * Images attached to a message: checked by their content, not their name or the type the
 * browser guesses from it, so a text file named `.png` is refused before it is sent (and
 * charged) as a broken image.
 */

/** Images bigger than this are refused: a data URL this size already strains a request. */
export const maximumImageBytes = 5 * 1024 * 1024;

/** The image types vision models take, as the playground names them. */
export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

function startsWith(bytes: Uint8Array, signature: number[], offset = 0): boolean {
  return signature.every((byte, index) => bytes[offset + index] === byte);
}

/**
 * The image type the first bytes announce ("magic numbers"), or null for anything else.
 *
 * @see https://www.w3.org/TR/png/#5PNG-file-signature
 * @see https://developers.google.com/speed/webp/docs/riff_container
 */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  // "GIF87a" or "GIF89a".
  if (
    startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) &&
    (bytes[4] === 0x37 || bytes[4] === 0x39) &&
    bytes[5] === 0x61
  ) {
    return 'image/gif';
  }
  // "RIFF", four bytes of size, "WEBP".
  if (
    startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) &&
    startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)
  ) {
    return 'image/webp';
  }
  return null;
}

function formatMegabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function readBytes(file: Blob): Promise<Uint8Array> {
  if (typeof file.arrayBuffer === 'function') {
    return file.arrayBuffer().then((buffer) => new Uint8Array(buffer));
  }
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(new Uint8Array(reader.result as ArrayBuffer));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsArrayBuffer(file);
  });
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  // In slices: one call with millions of arguments would overflow the stack.
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}

/**
 * The file as a data URL with the type its content announces, or a rejection whose message says
 * plainly why it cannot be attached (too large, empty, not a PNG, JPEG, GIF or WebP image).
 */
export async function readImageAsDataUrl(file: File): Promise<string> {
  const name = file.name ? `“${file.name}”` : 'The file';
  if (file.size === 0) throw new Error(`${name} is empty.`);
  if (file.size > maximumImageBytes) {
    throw new Error(
      `${name} is ${formatMegabytes(file.size)}; images up to ${formatMegabytes(maximumImageBytes)} can be attached.`,
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = await readBytes(file);
  } catch {
    throw new Error(`${name} could not be read.`);
  }
  const mediaType = sniffImageType(bytes);
  if (!mediaType) {
    throw new Error(
      `${name} is not a PNG, JPEG, GIF or WebP image: its content is something else, whatever its name says. Only those four types can be attached.`,
    );
  }
  return `data:${mediaType};base64,${toBase64(bytes)}`;
}
