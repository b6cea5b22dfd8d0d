/**
 * Reads `WORKBENCH_KEYS_FILE`: a JSON object `{ "<profile name>": "sk-…" }`. Errors name the
 * file and what is wrong with it, and never quote a key.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { containsSecret } from './secrets';

export class KeysFileError extends Error {
  constructor(path: string, reason: string) {
    super(`WORKBENCH_KEYS_FILE (${path}): ${reason}`);
    this.name = 'KeysFileError';
  }
}

/** Profile names travel in URLs and menus: keep them short and plain. */
export const profileNamePattern = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

const keysFileSchema = z.record(z.string(), z.unknown());

/** Returns profile name → full key, validated. */
export async function readKeysFile(path: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new KeysFileError(
      path,
      code === 'ENOENT' ? 'the file does not exist' : `cannot be read (${code ?? 'unknown error'})`,
    );
  }
  return parseKeysFile(text, path);
}

export function parseKeysFile(text: string, path: string): Record<string, string> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // The parser's message may quote the file's text, and so a key: do not pass it on.
    throw new KeysFileError(path, 'is not valid JSON');
  }
  const parsed = keysFileSchema.safeParse(json);
  if (!parsed.success || Array.isArray(json)) {
    throw new KeysFileError(path, 'must be a JSON object { "<profile name>": "sk-…" }');
  }
  const profiles: Record<string, string> = {};
  for (const [name, key] of Object.entries(parsed.data)) {
    if (containsSecret(name)) {
      throw new KeysFileError(
        path,
        'a profile name looks like a key: names are shown in the browser',
      );
    }
    if (!profileNamePattern.test(name)) {
      throw new KeysFileError(
        path,
        `profile name "${name.slice(0, 64)}" must be 1-64 letters, digits, spaces, dots, dashes or underscores`,
      );
    }
    if (typeof key !== 'string' || !/^sk-\S+$/.test(key)) {
      throw new KeysFileError(
        path,
        `the key of profile "${name}" must be a string beginning with sk-`,
      );
    }
    profiles[name] = key;
  }
  return profiles;
}
