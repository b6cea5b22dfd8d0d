/**
 * The agent session a request belongs to, from the header its client sends: coding agents name
 * one per conversation, so a session's requests, time and cost can be read together.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { invalidRequest } from '../errors';

/**
 * The headers read, first found wins (lower-case, as Node gives them). Each agent's own is
 * documented in docs/agents.md:
 * @see https://github.com/openai/codex/blob/main/codex-rs/codex-api/src/requests/headers.rs
 * @see https://github.com/sst/opencode/blob/dev/packages/opencode/src/session/llm.ts
 */
export const SESSION_HEADERS = [
  'x-claude-code-session-id',
  'session_id',
  'x-session-id',
  'x-session-affinity',
  'x-opencode-session',
] as const;

/** Longer than any agent's id (UUIDs, `ses_…`): a value past it is not a session id. */
export const MAX_SESSION_ID_LENGTH = 200;

/** The session the request names, or null; a value too long is refused with a 400 naming its header. */
export function sessionIdOf(headers: IncomingHttpHeaders): string | null {
  for (const name of SESSION_HEADERS) {
    const raw = headers[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (!value) continue;
    if (value.length > MAX_SESSION_ID_LENGTH)
      throw invalidRequest(
        `Header '${name}' is ${value.length} characters long; a session id may have at most ${MAX_SESSION_ID_LENGTH}.`,
      );
    return value;
  }
  return null;
}
