/**
 * The audit log's ends: who is acting (from the session); a middleware that records every
 * successful change made through the key and webhook routes (create, change, revoke, rotate,
 * hand over); and `GET /api/audit` (admins; `?format=csv|json` downloads the whole log). The
 * people routes record their own changes with before and after (people.ts).
 * A recorded value never holds a key: fields named `secret` are dropped and keys masked.
 */
import { Router, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { AuditActor, AuditEntry } from '../../contract/workbench-people';
import type { WorkbenchContext } from '../core/context';
import { parseInput } from '../core/errors';
import { redactJson } from '../core/secrets';
import { viewerOf } from '../sign-in/access';
import type { AuditLog, PeopleStore } from './people-store';

/** Who the request's session is. */
export function actorOf(response: Response, people: PeopleStore | null): AuditActor {
  const viewer = viewerOf(response);
  const principal = viewer.principal;
  if (principal === null) return { kind: 'local', id: null, email: null, role: 'admin' };
  if (principal.kind === 'access_token') {
    return { kind: 'access_token', id: null, email: null, role: 'admin' };
  }
  const person = people?.get(principal.personId);
  return {
    kind: 'person',
    id: principal.personId,
    email: person?.email ?? null,
    role: viewer.role,
  };
}

/** A value fit for the log: no `secret` field anywhere, keys masked. */
export function auditable(value: unknown, knownKeys: Iterable<string>): unknown {
  const withoutSecrets = JSON.parse(
    JSON.stringify(value ?? null, (name, item: unknown) => (name === 'secret' ? undefined : item)),
  ) as unknown;
  return redactJson(withoutSecrets, knownKeys);
}

interface ChangeRoute {
  pattern: RegExp;
  method: string;
  action: string;
  target: AuditEntry['target']['type'];
}

const keys = '^/profiles/[^/]+/child-keys';
const hooks = '^/profiles/[^/]+/webhooks';
/** The routes that change something, and what each change is called in the log. */
const changeRoutes: ChangeRoute[] = [
  { method: 'POST', pattern: new RegExp(`${keys}/?$`), action: 'key.create', target: 'key' },
  {
    method: 'POST',
    pattern: new RegExp(`${keys}/hand-over$`),
    action: 'key.hand_over',
    target: 'key',
  },
  { method: 'PATCH', pattern: new RegExp(`${keys}/([^/]+)$`), action: 'key.update', target: 'key' },
  {
    method: 'DELETE',
    pattern: new RegExp(`${keys}/([^/]+)$`),
    action: 'key.revoke',
    target: 'key',
  },
  {
    method: 'POST',
    pattern: new RegExp(`${keys}/([^/]+)/rotation$`),
    action: 'key.rotate',
    target: 'key',
  },
  {
    method: 'POST',
    pattern: new RegExp(`${keys}/([^/]+)/rotation/hand-over$`),
    action: 'key.rotate_hand_over',
    target: 'key',
  },
  {
    method: 'POST',
    pattern: new RegExp(`${hooks}/?$`),
    action: 'webhook.create',
    target: 'webhook',
  },
  {
    method: 'PATCH',
    pattern: new RegExp(`${hooks}/([^/]+)$`),
    action: 'webhook.update',
    target: 'webhook',
  },
  {
    method: 'DELETE',
    pattern: new RegExp(`${hooks}/([^/]+)$`),
    action: 'webhook.delete',
    target: 'webhook',
  },
];

/** Where a route's handler may leave the value before its change, for the log. */
export const auditBeforeLocal = 'auditBefore';
/** Where a route that streams its answer leaves its outcome, for the log. */
export const auditAfterLocal = 'auditAfter';

/**
 * Records the changes the key and webhook routes make, once they answered with success. Mount
 * inside `/api` before those routes.
 */
export function recordChanges(
  context: WorkbenchContext,
  audit: AuditLog,
  people: PeopleStore | null,
): RequestHandler {
  return (request, response, next) => {
    const route = changeRoutes.find(
      (candidate) => candidate.method === request.method && candidate.pattern.test(request.path),
    );
    if (!route) return next();
    // A JSON answer is the change's outcome; a streamed one (rotation) leaves its own. Either is
    // recorded before the answer ends, so a client that reads the log next finds it there.
    let answered: unknown;
    let recorded = false;
    const send = response.json.bind(response);
    response.json = (body: unknown) => {
      answered = body;
      return send(body);
    };
    const end = response.end.bind(response) as (...args: unknown[]) => Response;
    response.end = ((...args: unknown[]) => {
      const outcome = (response.locals[auditAfterLocal] as unknown) ?? answered;
      if (!recorded && response.statusCode < 400 && outcome !== undefined) {
        recorded = true;
        record(outcome);
      }
      return end(...args);
    }) as Response['end'];
    const record = (outcome: unknown) => {
      const answer = (outcome ?? {}) as Record<string, unknown>;
      const after = answer.key ?? answer.webhook ?? answer;
      const id =
        route.pattern.exec(request.path)?.[1] ??
        String((after as { id?: unknown } | null)?.id ?? 'unknown');
      const knownKeys = context.profiles.allKeys();
      const before = response.locals[auditBeforeLocal] as unknown;
      audit
        .record({
          actor: actorOf(response, people),
          action: route.action,
          target: { type: route.target, id },
          before: before === undefined ? null : auditable(before, knownKeys),
          after: auditable(route.action.endsWith('delete') ? null : after, knownKeys),
        })
        .catch((error: unknown) =>
          context.logger.error({ err: error }, 'a change could not be written to the audit log'),
        );
    };
    next();
  };
}

const auditQuerySchema = z.object({ format: z.enum(['csv', 'json']).optional() });

/** Entries the page shows; the downloads hold every entry kept. */
const entriesShown = 500;

/** `GET /api/audit`; the scope guard keeps members out. */
export function createAuditRouter(audit: AuditLog): Router {
  const router = Router();
  router.get('/audit', (request, response) => {
    const query = parseInput(auditQuerySchema, request.query, 'query');
    const entries = audit.list();
    if (query.format === 'csv') {
      response.setHeader('Content-Disposition', 'attachment; filename="workbench-audit.csv"');
      response.type('text/csv').send(auditCsv(entries));
      return;
    }
    if (query.format === 'json') {
      response.setHeader('Content-Disposition', 'attachment; filename="workbench-audit.json"');
    }
    const shown = query.format === 'json' ? entries : entries.slice(0, entriesShown);
    response.json({ entries: shown, fetched_at: Date.now() });
  });
  return router;
}

/** One field of a CSV line, quoted; a leading formula character is neutralised for spreadsheets. */
function csvField(value: unknown): string {
  let text =
    value === null || value === undefined
      ? ''
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);
  if (/^[=+\-@]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

export function auditCsv(entries: AuditEntry[]): string {
  const header = [
    'at',
    'actor_kind',
    'actor_email',
    'actor_role',
    'action',
    'target_type',
    'target_id',
    'before',
    'after',
  ];
  const lines = entries.map((entry) =>
    [
      new Date(entry.at).toISOString(),
      entry.actor.kind,
      entry.actor.email,
      entry.actor.role,
      entry.action,
      entry.target.type,
      entry.target.id,
      entry.before,
      entry.after,
    ]
      .map(csvField)
      .join(','),
  );
  return `${[header.join(','), ...lines].join('\r\n')}\r\n`;
}
