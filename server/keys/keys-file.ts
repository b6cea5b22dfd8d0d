/**
 * Reads `WORKBENCH_KEYS_FILE`: a JSON object `{ "<profile name>": "sk-…" }`. Errors name the
 * file and what is wrong with it, and never quote a key.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { profileNamePattern } from '../../contract/workbench-api';
import { containsSecret } from '../core/secrets';

export class KeysFileError extends Error {
  /** `source` names the file for a person: the variable, or the workbench's own keys store. */
  constructor(path: string, reason: string, source = 'WORKBENCH_KEYS_FILE') {
    super(`${source} (${path}): ${reason}`);
    this.name = 'KeysFileError';
  }
}

export { profileNamePattern };

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

export function parseKeysFile(
  text: string,
  path: string,
  source = 'WORKBENCH_KEYS_FILE',
): Record<string, string> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // The parser's message may quote the file's text, and so a key: do not pass it on.
    throw new KeysFileError(path, 'is not valid JSON', source);
  }
  const parsed = keysFileSchema.safeParse(json);
  if (!parsed.success || Array.isArray(json)) {
    throw new KeysFileError(path, 'must be a JSON object { "<profile name>": "sk-…" }', source);
  }
  const profiles: Record<string, string> = {};
  for (const [name, key] of Object.entries(parsed.data)) {
    if (containsSecret(name)) {
      throw new KeysFileError(
        path,
        'a profile name looks like a key: names are shown in the browser',
        source,
      );
    }
    if (!profileNamePattern.test(name)) {
      throw new KeysFileError(
        path,
        `profile name "${name.slice(0, 64)}" must be 1-64 letters, digits, spaces, dots, dashes or underscores`,
        source,
      );
    }
    if (typeof key !== 'string' || !/^sk-\S+$/.test(key)) {
      throw new KeysFileError(
        path,
        `the key of profile "${name}" must be a string beginning with sk-`,
        source,
      );
    }
    profiles[name] = key;
  }
  return profiles;
}
