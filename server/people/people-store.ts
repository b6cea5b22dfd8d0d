/**
 * Where the workbench keeps the people who signed in (person → their own key's profile and id)
 * and the audit log, beside the keys store (keys-store.ts), which keeps the keys themselves:
 * - `workbench-people.json`: rewritten whole and atomically at each change, owner-only;
 * - `workbench-audit.jsonl`: one JSON line appended per change, owner-only.
 * Neither file ever holds a key. Without a keys store (an external gateway with GATEWAY_API_KEY
 * alone) both live in memory only.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import {
  auditEntrySchema,
  memberKeyPolicySchema,
  personSchema,
  type AuditEntry,
  type MemberKeyPolicy,
} from '../../contract/workbench-people';
import { writeFileAtomically, type KeysStore } from '../keys/keys-store';

export const peopleFileName = 'workbench-people.json';
export const auditFileName = 'workbench-audit.jsonl';

/** One person as kept: who they are at their last sign-in, and their own key. */
export const storedPersonSchema = personSchema
  .pick({
    id: true,
    email: true,
    name: true,
    groups: true,
    role: true,
    disabled: true,
    profile: true,
    key_id: true,
    created_at: true,
    last_sign_in_at: true,
  })
  // The issuer's id of the person (the `sub` claim), which the id is derived from.
  .extend({ subject: z.string() });
export type StoredPerson = z.infer<typeof storedPersonSchema>;

const peopleFileSchema = z.object({
  people: z.array(storedPersonSchema),
  /** The policy an admin set on the People page; absent: the environment's. */
  policy: memberKeyPolicySchema.optional(),
});

/** The people, in memory and (with a folder) in `workbench-people.json`. */
export class PeopleStore {
  private readonly people = new Map<string, StoredPerson>();
  private keptPolicy: MemberKeyPolicy | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly file: string | null) {}

  /** Opens the store beside the keys store; a broken file stops start-up, naming it. */
  static async open(keysStore: KeysStore | null): Promise<PeopleStore> {
    const file = keysStore
      ? path.join(path.dirname(keysStore.location.path), peopleFileName)
      : null;
    const store = new PeopleStore(file);
    if (file) {
      const text = await readFile(file, 'utf8').catch((error: { code?: string }) => {
        if (error.code === 'ENOENT') return null;
        throw new Error(`${file} cannot be read (${error.code ?? 'unknown error'}).`);
      });
      if (text !== null) {
        let parsed: z.infer<typeof peopleFileSchema>;
        try {
          parsed = peopleFileSchema.parse(JSON.parse(text));
        } catch {
          throw new Error(`${file} is not the workbench's people file: fix or remove it.`);
        }
        for (const person of parsed.people) store.people.set(person.id, person);
        store.keptPolicy = parsed.policy;
      }
    }
    return store;
  }

  /** A store that keeps nothing on disk (tests of one app, no keys store). */
  static memory(): PeopleStore {
    return new PeopleStore(null);
  }

  get(id: string): StoredPerson | undefined {
    return this.people.get(id);
  }

  list(): StoredPerson[] {
    return [...this.people.values()].sort((a, b) => a.created_at - b.created_at);
  }

  /** Which person's key a profile holds; undefined when it is nobody's. */
  ownerOfProfile(profile: string): StoredPerson | undefined {
    return this.list().find((person) => person.profile === profile);
  }

  /** Saves the person (new or changed) and rewrites the file. */
  put(person: StoredPerson): Promise<void> {
    this.people.set(person.id, person);
    return this.save();
  }

  /** The policy an admin set, if any. */
  get policy(): MemberKeyPolicy | undefined {
    return this.keptPolicy;
  }

  setPolicy(policy: MemberKeyPolicy): Promise<void> {
    this.keptPolicy = policy;
    return this.save();
  }

  remove(id: string): Promise<void> {
    this.people.delete(id);
    return this.save();
  }

  /** One rewrite at a time, each with everything in memory then. */
  private save(): Promise<void> {
    const file = this.file;
    if (!file) return Promise.resolve();
    const run = () =>
      writeFileAtomically(
        file,
        `${JSON.stringify({ people: this.list(), policy: this.keptPolicy }, null, 2)}\n`,
      );
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** Entries kept in memory for the page; the file keeps them all. */
const entriesInMemory = 10_000;

/** The audit log: appended, never rewritten. */
export class AuditLog {
  private readonly entries: AuditEntry[] = [];
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly file: string | null,
    private readonly now: () => number,
  ) {}

  static async open(keysStore: KeysStore | null, now: () => number = Date.now): Promise<AuditLog> {
    const file = keysStore ? path.join(path.dirname(keysStore.location.path), auditFileName) : null;
    const log = new AuditLog(file, now);
    if (file) {
      const text = await readFile(file, 'utf8').catch(() => '');
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        // A line cut short by a crash is skipped rather than stopping start-up.
        const parsed = auditEntrySchema.safeParse(safeJson(line));
        if (parsed.success) log.entries.push(parsed.data);
      }
      log.entries.splice(0, Math.max(0, log.entries.length - entriesInMemory));
    }
    return log;
  }

  static memory(now: () => number = Date.now): AuditLog {
    return new AuditLog(null, now);
  }

  /** Records a change (the caller masks keys and drops secrets first). */
  record(entry: Omit<AuditEntry, 'id' | 'at'>): Promise<AuditEntry> {
    const full: AuditEntry = { id: randomUUID(), at: this.now(), ...entry };
    this.entries.push(full);
    if (this.entries.length > entriesInMemory) this.entries.shift();
    const file = this.file;
    if (!file) return Promise.resolve(full);
    const run = () =>
      appendFile(file, `${JSON.stringify(full)}\n`, { encoding: 'utf8', mode: 0o600 });
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next.then(() => full);
  }

  /** Newest first. */
  list(): AuditEntry[] {
    return [...this.entries].reverse();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
