/**
 * The people who sign in with OpenID Connect (sign-in/oidc.ts), and their own keys:
 * - at a person's first sign-in, a child key under the team key (WORKBENCH_TEAM_PROFILE), made by
 *   the policy (WORKBENCH_MEMBER_KEY_*, or their group's from WORKBENCH_MEMBER_POLICY_FILE) and
 *   kept as their profile in the keys store, never sent to the browser;
 * - `GET /api/people` (admins): everyone, their key, this period's spend, their last request;
 * - `PATCH /api/people/:id` (admins): budget, period, models, disabled (the key too: 402 at once);
 * - `DELETE /api/people/:id` (admins): revokes their key and forgets them;
 * - `PUT /api/people/policy` (admins): the policy for new keys, over WORKBENCH_MEMBER_KEY_*;
 * - `GET /api/people/me`, `POST /api/people/me/key/hand-over`: a person's own, the key's new
 *   secret shown once (the gateway's rotate: the secret shown before stops);
 * Every change is written to the audit log with who, when, before and after.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Router, type Response } from 'express';
import { z } from 'zod';
import { generationListSchema, type ManagedKey } from '../../contract/gateway';
import {
  handOverOwnKeyRequestSchema,
  memberPolicyFileSchema,
  updatePersonRequestSchema,
  updatePolicyRequestSchema,
  type AuditEntry,
  type HandedOverOwnKey,
  type MemberKeyPolicy,
  type People,
  type Person,
  type PersonKey,
} from '../../contract/workbench-people';
import { ConfigError, type OidcSettings } from '../core/config';
import type { WorkbenchContext } from '../core/context';
import { ApiFailure, parseInput, readGatewayAnswer } from '../core/errors';
import { profileNameFor } from '../keys/child-keys';
import {
  childKeyOf,
  createChildKey,
  listChildKeys,
  revokeChildKey,
  rotateChildKey,
  showChildKey,
  updateChildKey,
  type ChildKeyChange,
} from '../keys/child-keys-gateway';
import type { KeysStore } from '../keys/keys-store';
import { viewerOf, type PeopleSignIn, type SessionPerson } from '../sign-in/access';
import type { VerifiedIdentity } from '../sign-in/oidc';
import { actorOf, auditable } from './audit';
import type { AuditLog, PeopleStore, StoredPerson } from './people-store';

/** A policy per group, in the file's order; the first group a person is in wins. */
export type GroupPolicies = [group: string, policy: MemberKeyPolicy][];

/** Reads WORKBENCH_MEMBER_POLICY_FILE; a bad file stops start-up, naming the variable. */
export async function loadGroupPolicies(
  file: string | null,
  defaults: MemberKeyPolicy,
): Promise<GroupPolicies> {
  if (file === null) return [];
  const fail = (reason: string) => {
    throw new ConfigError('WORKBENCH_MEMBER_POLICY_FILE', `${file} ${reason}`);
  };
  const text = await readFile(file, 'utf8').catch((error: { code?: string }) =>
    fail(`cannot be read (${error.code ?? 'unknown error'})`),
  );
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return fail('is not JSON');
  }
  const parsed = memberPolicyFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(`: ${issue?.path.join('.') || 'the file'} ${issue?.message ?? 'is not valid'}`);
  }
  return Object.entries(parsed.data.groups).map(([group, policy]) => {
    const merged = { ...defaults, ...policy };
    if (merged.kind === 'shared_child') merged.limit_usd = null;
    return [group, merged];
  });
}

/** A person's id: stable for one subject at one issuer, and fit for a path. */
export function personIdOf(issuer: string, subject: string): string {
  return createHash('sha256').update(`${issuer}\n${subject}`).digest('base64url').slice(0, 22);
}

/** Admin by a verified e-mail address on the list, or by a group on the list. */
export function roleOf(identity: VerifiedIdentity, settings: OidcSettings): 'admin' | 'member' {
  const byEmail =
    identity.email !== null &&
    identity.emailVerified &&
    settings.adminEmails.includes(identity.email);
  const byGroup = identity.groups.some((group) => settings.adminGroups.includes(group));
  return byEmail || byGroup ? 'admin' : 'member';
}

/** The period and model fields of a gateway key, read leniently (an older gateway has none). */
const keyPolicyFieldsSchema = z.object({
  limit_reset: z.enum(['none', 'daily', 'weekly', 'monthly']).catch('none').default('none'),
  resets_at: z.number().nullable().catch(null).default(null),
  allowed_models: z.array(z.string()).nullable().catch([]).default([]),
});

function personKeyOf(key: ManagedKey, knownKeys: string[]): PersonKey {
  const view = childKeyOf(key, null, knownKeys);
  const fields = keyPolicyFieldsSchema.parse(key);
  return {
    id: view.id,
    kind: view.kind,
    key: view.key,
    state: view.state,
    disabled: view.disabled,
    limit_usd: view.limit_usd,
    consumption_usd: view.consumption_usd,
    remaining_usd: view.remaining_usd,
    limit_reset: fields.limit_reset,
    resets_at: fields.resets_at,
    allowed_models: fields.allowed_models ?? [],
  };
}

/** The gateway's fields for a key made or changed by a policy; defaults are left out. */
function policyFields(
  policy: Partial<Pick<MemberKeyPolicy, 'limit_usd' | 'limit_reset' | 'allowed_models'>>,
): Partial<ChildKeyChange> & { limit_reset?: string; allowed_models?: string[] } {
  return {
    ...(policy.limit_usd !== undefined && policy.limit_usd !== null
      ? { limit_usd: policy.limit_usd }
      : {}),
    // Sent only when they say something: a gateway without periods or model lists refuses them.
    ...(policy.limit_reset !== undefined && policy.limit_reset !== 'none'
      ? { limit_reset: policy.limit_reset }
      : {}),
    ...(policy.allowed_models !== undefined && policy.allowed_models.length > 0
      ? { allowed_models: policy.allowed_models }
      : {}),
  };
}

const personIdParams = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a person id'),
});
const removeBodySchema = z.strictObject({}).optional();

export interface PeopleService extends PeopleSignIn {
  router: Router;
}

export function createPeople(options: {
  context: WorkbenchContext;
  settings: OidcSettings;
  groupPolicies: GroupPolicies;
  people: PeopleStore;
  audit: AuditLog;
  keysStore: KeysStore | null;
  /** Ends a person's sessions (access.ts), once the access control exists. */
  endPersonSessions: (personId: string) => void;
  now?: () => number;
}): PeopleService {
  const { context, settings, people, audit, keysStore } = options;
  const { profiles, logger } = context;
  const now = options.now ?? Date.now;
  /** Why a person has no key (the last attempt's failure), until one is made. */
  const keyProblems = new Map<string, string>();

  const teamKey = () => {
    if (settings.teamProfile === null) {
      throw new ApiFailure(409, {
        message: 'People have no keys here: WORKBENCH_TEAM_PROFILE is not set.',
        stage: 'profile',
        type: 'no_team_profile',
        advice: 'Set WORKBENCH_TEAM_PROFILE to an account key profile and restart the workbench.',
      });
    }
    return profiles.keyOf(settings.teamProfile);
  };

  /** The policy for people in no policy group: an admin's, else the environment's. */
  const defaultPolicy = () => people.policy ?? settings.defaultPolicy;
  const policyFor = (groups: string[]): MemberKeyPolicy =>
    options.groupPolicies.find(([group]) => groups.includes(group))?.[1] ?? defaultPolicy();

  /** Makes a person's own key by their policy and keeps it as their profile. */
  async function makeKey(person: StoredPerson): Promise<void> {
    if (settings.teamProfile === null || keysStore === null) return;
    const policy = policyFor(person.groups);
    const label = person.email ?? person.name ?? person.subject;
    const issued = await createChildKey(context, teamKey(), {
      kind: policy.kind,
      name: `person ${label}`.slice(0, 120),
      ...policyFields(policy),
    });
    const name = profileNameFor(label.replace(/@/g, ' at '), (candidate) =>
      profiles.has(candidate),
    );
    try {
      await keysStore.put(name, issued.secret);
    } catch (error) {
      // Nobody could ever use a key that is kept nowhere: take it back.
      await revokeChildKey(context, teamKey(), issued.summary.id).catch(() => undefined);
      throw error;
    }
    profiles.set(name, issued.secret);
    profiles.rememberKeyId(issued.secret, issued.summary.id);
    profiles.rememberIdentity(name, issued.summary.kind);
    person.profile = name;
    person.key_id = issued.summary.id;
    await audit.record({
      actor: { kind: 'person', id: person.id, email: person.email, role: person.role },
      action: 'key.create',
      target: { type: 'key', id: issued.summary.id },
      before: null,
      // The key as the policy made it; its figures are on the People page.
      after: auditable({ profile: name, key: issued.summary.key, ...policy }, profiles.allKeys()),
    });
    logger.info(
      { person: person.id, key_id: issued.summary.id, profile: name },
      'person key created',
    );
  }

  async function signIn(identity: VerifiedIdentity): Promise<string> {
    const id = personIdOf(identity.issuer, identity.subject);
    const existing = people.get(id);
    if (existing?.disabled) {
      throw new Error('Your access to this workbench is disabled: ask an admin to enable you.');
    }
    const time = now();
    const person: StoredPerson = {
      id,
      subject: identity.subject,
      email: identity.email,
      name: identity.name,
      groups: identity.groups,
      role: roleOf(identity, settings),
      disabled: false,
      profile: existing?.profile ?? null,
      key_id: existing?.key_id ?? null,
      created_at: existing?.created_at ?? time,
      last_sign_in_at: time,
    };
    if (!existing) {
      await audit.record({
        actor: { kind: 'person', id, email: person.email, role: person.role },
        action: 'person.create',
        target: { type: 'person', id },
        before: null,
        after: { email: person.email, name: person.name, groups: person.groups, role: person.role },
      });
    }
    if (person.key_id === null) {
      try {
        await makeKey(person);
        keyProblems.delete(id);
      } catch (error) {
        // Signing in still works; the key is tried again at the next sign-in.
        keyProblems.set(id, (error as Error).message);
        logger.error({ err: error, person: id }, 'a person key could not be made');
      }
    }
    await people.put(person);
    return id;
  }

  function find(personId: string): SessionPerson | undefined {
    const person = people.get(personId);
    if (!person) return undefined;
    return {
      role: person.role,
      disabled: person.disabled,
      profile: person.profile,
      email: person.email,
      name: person.name,
    };
  }

  /**
   * The person with the id of the key their profile holds now: an admin may have rotated it
   * from the Keys page, which moves the profile to a new key. The change is kept.
   */
  async function current(person: StoredPerson): Promise<StoredPerson> {
    const held = person.profile === null ? null : profiles.keyIdOf(person.profile);
    if (held === null || held === person.key_id) return person;
    const moved = { ...person, key_id: held };
    await people.put(moved);
    return moved;
  }

  /** A person with their key's figures and last request, as the gateway says now. */
  async function describe(
    stored: StoredPerson,
    /** The team's keys from one list call, when describing everyone. */
    listed?: Map<string, ManagedKey>,
  ): Promise<Person> {
    const person = await current(stored);
    let key: PersonKey | null = null;
    let keyProblem = keyProblems.get(person.id) ?? null;
    let lastRequestAt: number | null = null;
    if (person.key_id !== null && settings.teamProfile !== null) {
      try {
        const team = teamKey();
        const [shown, last] = await Promise.all([
          listed?.get(person.key_id) ?? showChildKey(context, team, person.key_id),
          context.gateway
            .collect({
              method: 'GET',
              path: `/v1/generations?key_id=${encodeURIComponent(person.key_id)}&limit=1`,
              key: team,
            })
            .then((answer) =>
              readGatewayAnswer(answer, generationListSchema, 'not a list', profiles.allKeys()),
            )
            .catch(() => null),
        ]);
        key = personKeyOf(shown, profiles.allKeys());
        const newest = last?.data[0] as { created_at?: unknown } | undefined;
        lastRequestAt = typeof newest?.created_at === 'number' ? newest.created_at : null;
      } catch (error) {
        keyProblem = (error as Error).message;
      }
    }
    return {
      id: person.id,
      email: person.email,
      name: person.name,
      groups: person.groups,
      role: person.role,
      disabled: person.disabled,
      profile: person.profile,
      key_id: person.key_id,
      key,
      key_problem: keyProblem,
      created_at: person.created_at,
      last_sign_in_at: person.last_sign_in_at,
      last_request_at: lastRequestAt,
    };
  }

  const personOr404 = async (id: string) => {
    const person = people.get(id);
    if (!person) {
      throw new ApiFailure(404, {
        message: `No person with id ${id}: they were removed, or never signed in.`,
        stage: 'validation',
        field: 'id',
      });
    }
    return current(person);
  };

  const record = (
    response: Response,
    action: string,
    target: AuditEntry['target'],
    before: unknown,
    after: unknown,
  ) =>
    audit.record({
      actor: actorOf(response, people),
      action,
      target,
      before: auditable(before, profiles.allKeys()),
      after: auditable(after, profiles.allKeys()),
    });

  /** The person of this session, or a 404 for a session that is not a person's. */
  const me = async (response: Response): Promise<StoredPerson> => {
    const principal = viewerOf(response).principal;
    const person = principal?.kind === 'person' ? people.get(principal.personId) : undefined;
    if (!person) {
      throw new ApiFailure(404, {
        message: 'This session is not a person’s: it was opened with the access token.',
        stage: 'session',
        type: 'not_a_person',
      });
    }
    return current(person);
  };

  const router = Router();

  router.get('/people', async (_request, response) => {
    // One call for every key's figures; each person's last request is a call of its own.
    const listed =
      settings.teamProfile === null
        ? undefined
        : await listChildKeys(context, teamKey(), false).then(
            (keys) => new Map(keys.map((key) => [key.id, key])),
            // Without the list, each person's key is asked for on its own (and says why not).
            () => undefined,
          );
    const answer: People = {
      people: await Promise.all(people.list().map((person) => describe(person, listed))),
      team_profile: settings.teamProfile,
      default_policy: defaultPolicy(),
      policy_source: people.policy ? 'workbench' : 'environment',
      fetched_at: now(),
    };
    response.json(answer);
  });

  router.get('/people/me', async (_request, response) => {
    response.json({ person: await describe(await me(response)) });
  });

  router.post('/people/me/key/hand-over', async (request, response) => {
    parseInput(handOverOwnKeyRequestSchema, request.body, 'body');
    const person = await me(response);
    if (person.key_id === null || person.profile === null || keysStore === null) {
      throw new ApiFailure(409, {
        message: 'You have no key of your own to hand over yet.',
        stage: 'profile',
        type: 'no_own_key',
        advice:
          keyProblems.get(person.id) ??
          'Sign out and in again; if you still get none, ask an admin (WORKBENCH_TEAM_PROFILE).',
      });
    }
    const issued = await rotateChildKey(context, teamKey(), person.key_id);
    // The workbench keeps the new secret too, so the person's own profile goes on working.
    await keysStore.put(person.profile, issued.secret);
    profiles.set(person.profile, issued.secret);
    profiles.rememberKeyId(issued.secret, issued.summary.id);
    await record(response, 'key.hand_over', { type: 'key', id: person.key_id }, null, {
      profile: person.profile,
      key: issued.summary.key,
    });
    logger.info({ person: person.id, key_id: person.key_id }, 'person key handed over');
    const answer: HandedOverOwnKey = {
      key_id: person.key_id,
      profile: person.profile,
      secret: issued.secret,
    };
    response.setHeader('Cache-Control', 'no-store');
    response.json(answer);
  });

  router.put('/people/policy', async (request, response) => {
    const policy = parseInput(updatePolicyRequestSchema, request.body, 'body');
    const before = defaultPolicy();
    await people.setPolicy(policy);
    await record(response, 'policy.update', { type: 'policy', id: 'default' }, before, policy);
    response.json({ policy });
  });

  router.patch('/people/:id', async (request, response) => {
    const { id } = parseInput(personIdParams, request.params, 'query');
    const change = parseInput(updatePersonRequestSchema, request.body, 'body');
    const person = await personOr404(id);
    const keyChange = {
      ...policyFields(change),
      // Explicit values are sent even when they are the default: the admin chose them.
      ...(change.limit_reset !== undefined ? { limit_reset: change.limit_reset } : {}),
      ...(change.allowed_models !== undefined ? { allowed_models: change.allowed_models } : {}),
      ...(change.disabled !== undefined ? { disabled: change.disabled } : {}),
    };
    let before: PersonKey | null = null;
    let after: PersonKey | null = null;
    if (person.key_id !== null && Object.keys(keyChange).length > 0) {
      const team = teamKey();
      before = personKeyOf(await showChildKey(context, team, person.key_id), profiles.allKeys());
      after = personKeyOf(
        await updateChildKey(context, team, person.key_id, keyChange),
        profiles.allKeys(),
      );
    }
    const wasDisabled = person.disabled;
    if (change.disabled !== undefined && change.disabled !== wasDisabled) {
      await people.put({ ...person, disabled: change.disabled });
      if (change.disabled) options.endPersonSessions(person.id);
    }
    const action =
      change.disabled === true
        ? 'person.disable'
        : change.disabled === false
          ? 'person.enable'
          : 'person.update';
    await record(
      response,
      action,
      { type: 'person', id: person.id },
      { disabled: wasDisabled, key: before },
      { disabled: change.disabled ?? wasDisabled, key: after },
    );
    response.json({ person: await describe(await personOr404(id)) });
  });

  router.delete('/people/:id', async (request, response) => {
    const { id } = parseInput(personIdParams, request.params, 'query');
    parseInput(removeBodySchema, request.body, 'body');
    const person = await personOr404(id);
    if (person.key_id !== null) {
      await revokeChildKey(context, teamKey(), person.key_id).catch((error: unknown) => {
        // A key the gateway no longer knows needs no revoking; anything else stops the removal.
        if (!(error instanceof ApiFailure && error.status === 404)) throw error;
      });
    }
    if (person.profile !== null) {
      await keysStore?.remove([person.profile]);
      profiles.remove(person.profile);
    }
    await people.remove(person.id);
    options.endPersonSessions(person.id);
    keyProblems.delete(person.id);
    await record(
      response,
      'person.remove',
      { type: 'person', id: person.id },
      { email: person.email, profile: person.profile, key_id: person.key_id },
      null,
    );
    response.json({ id: person.id, removed: true });
  });

  return { settings, find, signIn, router };
}
