/**
 * Generation records as a key sees them: one record, a page of them, or daily totals. A key sees
 * its own records and those of the keys it replaced (a rotation by a new key: the history goes on);
 * an account key also sees its children's. A record another key made is marked with that key (id,
 * name, masked key). Any other record does not exist for it (404), so ids cannot be probed. The
 * routes ask here and never read storage themselves.
 */
import { notFound } from '../errors';
import type { KeyRegistry } from '../keys/key-registry';
import type {
  GatewayStore,
  GenerationOutcome,
  GenerationPosition,
  GenerationRow,
  GenerationScope,
} from '../store/store';
import { nanosToUsd } from '../shared/money';
import { generationValuesToWire } from '../../contract/generation-record';
import type { GenerationRecord } from '../../contract/gateway';

/** The child a record belongs to, when an account key reads a child's record. */
export type ChildMark = { id: string; name: string; key: string };

/**
 * The one wire form of a generation record (`GET /v1/generation` and `GET /v1/generations`): its
 * fields as contract/generation-record.ts names them, the cost in USD.
 */
export function generationToWire(record: GenerationRow, child: ChildMark | null): GenerationRecord {
  return {
    object: 'generation',
    ...generationValuesToWire(record, {
      costNanos: nanosToUsd,
      settled: (settled) => (settled ? 'settled' : 'pending'),
      attempts: (attempts) =>
        attempts.map((attempt) => ({
          provider: attempt.provider,
          status: attempt.status,
          latency_ms: attempt.latencyMs,
          ...(attempt.model !== undefined && { model: attempt.model }),
        })),
    }),
    /** Null for the presenting key's own records. */
    child,
  } as GenerationRecord;
}

export type GenerationFilters = {
  model?: string;
  sessionId?: string;
  batchId?: string;
  outcome?: GenerationOutcome;
  from?: number;
  to?: number;
  /** Only this key's records: the presenting key itself or one of its children. */
  keyId?: string;
};

export const MAX_PAGE = 200;
/**
 * How many replaced keys back a key's history reaches. A rotation is a person's deliberate act, so
 * a chain this long is not expected; the bound keeps a listing's merge (one range per key) small.
 */
export const MAX_PREDECESSORS = 100;
export const MAX_ACTIVITY_DAYS = 90;
/** The most sessions one answer lists (the latest active). */
export const MAX_SESSIONS = 200;
const SECONDS_PER_DAY = 86_400;

/** The key a viewer is: only what visibility needs. */
type Viewer = { id: string; kind: string };

export class GenerationRecords {
  constructor(
    private readonly store: GatewayStore,
    private readonly registry: KeyRegistry,
  ) {}

  /** One record, if the viewer made it, replaced the key that did, or is that key's parent. */
  async get(viewer: Viewer, id: string) {
    const record = await this.store.getGeneration(id);
    const owner = record ? this.registry.get(record.keyId) : undefined;
    if (
      !record ||
      !owner ||
      (owner.id !== viewer.id &&
        owner.parentId !== viewer.id &&
        !this.predecessorsOf(viewer.id).includes(owner.id))
    ) {
      throw notFound(`No generation record ${id.slice(0, 64)} is visible to this key.`);
    }
    return generationToWire(record, this.childMark(viewer, record.keyId));
  }

  /** A page of records, newest first, after `after` (the previous page's last position). */
  async page(
    viewer: Viewer,
    filters: GenerationFilters,
    limit: number,
    after?: GenerationPosition,
  ) {
    const listed = await this.store.listGenerations({
      ...this.scope(viewer, filters.keyId),
      model: filters.model,
      sessionId: filters.sessionId,
      batchId: filters.batchId,
      outcome: filters.outcome,
      from: filters.from,
      to: filters.to,
      after,
      limit: limit + 1,
    });
    const page = listed.slice(0, limit);
    return {
      data: page.map(({ row }) => generationToWire(row, this.childMark(viewer, row.keyId))),
      next: listed.length > limit ? page[page.length - 1]!.position : null,
    };
  }

  /**
   * Requests, tokens and cost per UTC day and model over the last `days` days (today included),
   * every day present, oldest first. Costs are summed in nanos and turned into USD once.
   */
  async activity(viewer: Viewer, days: number, now: number, keyId?: string) {
    const today = Math.floor(now / SECONDS_PER_DAY);
    const firstDay = today - days + 1;
    const rows = await this.store.activity(this.scope(viewer, keyId), firstDay, today);
    const byDay = new Map<number, typeof rows>();
    for (const row of rows) byDay.set(row.day, [...(byDay.get(row.day) ?? []), row]);
    const sum = (list: typeof rows) => ({
      requests: list.reduce((total, row) => total + row.requests, 0),
      prompt_tokens: list.reduce((total, row) => total + row.promptTokens, 0),
      completion_tokens: list.reduce((total, row) => total + row.completionTokens, 0),
      cost_usd: nanosToUsd(list.reduce((total, row) => total + row.costNanos, 0)),
    });
    const data = Array.from({ length: days }, (_, index) => {
      const day = firstDay + index;
      const models = byDay.get(day) ?? [];
      return {
        date: isoDate(day),
        ...sum(models),
        models: models.map((row) => ({ model: row.model, ...sum([row]) })),
      };
    });
    return {
      object: 'activity' as const,
      days,
      from: isoDate(firstDay),
      to: isoDate(today),
      data,
      totals: sum(rows),
    };
  }

  /** The agent sessions active in the last `days` days (today included), the latest first. */
  async sessions(viewer: Viewer, days: number, now: number, keyId?: string) {
    const from = (Math.floor(now / SECONDS_PER_DAY) - days + 1) * SECONDS_PER_DAY;
    const rows = await this.store.sessions(this.scope(viewer, keyId), from, MAX_SESSIONS);
    return {
      object: 'list' as const,
      days,
      data: rows.map((row) => ({
        session_id: row.sessionId,
        requests: row.requests,
        started_at: row.startedAt,
        ended_at: row.endedAt,
        duration_seconds: Math.max(0, row.endedAt - row.startedAt),
        prompt_tokens: row.promptTokens,
        completion_tokens: row.completionTokens,
        cache_read_tokens: row.cacheReadTokens,
        cache_hits: row.cacheHits,
        cost_usd: nanosToUsd(row.costNanos),
      })),
    };
  }

  /**
   * What a viewer may read: its own records with those of the keys it replaced, or (an account) its
   * tree or one key of it; `keyId` narrows to one key the viewer sees.
   */
  private scope(viewer: Viewer, keyId: string | undefined): GenerationScope {
    if (keyId === undefined || keyId === viewer.id) {
      return viewer.kind === 'account' && keyId === undefined
        ? { accountId: viewer.id }
        : { keyId: viewer.id, predecessorIds: this.predecessorsOf(viewer.id) };
    }
    if (viewer.kind === 'account' && this.registry.get(keyId)?.parentId === viewer.id) {
      return { keyId, predecessorIds: this.predecessorsOf(keyId) };
    }
    if (this.predecessorsOf(viewer.id).includes(keyId)) return { keyId };
    throw notFound(`No key ${keyId.slice(0, 64)} is visible to this key (key_id).`);
  }

  /** The keys `keyId` replaced, the latest first, as far back as `MAX_PREDECESSORS`. */
  private predecessorsOf(keyId: string): string[] {
    const chain: string[] = [];
    let key = this.registry.get(keyId);
    while (key?.replacesId && chain.length < MAX_PREDECESSORS) {
      // A loop cannot be made (a key names an older key when it is created), but stay safe.
      if (key.replacesId === keyId || chain.includes(key.replacesId)) break;
      chain.push(key.replacesId);
      key = this.registry.get(key.replacesId);
    }
    return chain;
  }

  private childMark(viewer: Viewer, keyId: string): ChildMark | null {
    if (keyId === viewer.id) return null;
    const child = this.registry.get(keyId);
    return child ? { id: child.id, name: child.name, key: child.masked } : null;
  }
}

const isoDate = (day: number) => new Date(day * SECONDS_PER_DAY * 1000).toISOString().slice(0, 10);
