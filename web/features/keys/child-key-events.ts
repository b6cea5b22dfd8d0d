/** A key's audited changes in plain words: who did what, and each field's old and new value. */
import type { ChildKeyEvent } from '../../../contract/workbench-api';
import { formatDateTime, formatUsd } from '../../lib/format';
import { identityLabels } from './key-state';

const actionWords: Record<string, string> = {
  create: 'Created',
  update: 'Changed',
  disable: 'Disabled',
  enable: 'Enabled',
  rotate: 'Rotated (new secret)',
  revoke: 'Revoked',
  recharge: 'Recharged',
  credit: 'Credited',
  allocate: 'Allocated money',
  return: 'Returned money',
};

/** What happened, in a word or two; a change of `disabled` alone reads as Disabled or Enabled. */
export function describeAction(event: Pick<ChildKeyEvent, 'action' | 'changes'>): string {
  const fields = Object.keys(event.changes);
  if (event.action === 'update' && fields.length === 1 && fields[0] === 'disabled') {
    return event.changes.disabled?.new === true ? 'Disabled' : 'Enabled';
  }
  return actionWords[event.action] ?? event.action;
}

/** A key's name by its id, from the account's list; undefined for one it does not list. */
export type KeyNames = ReadonlyMap<string, string>;

/**
 * The acting key or tool: the gateway names a key by its id, which is said as the key's name
 * when the account lists it; the rest by a word.
 */
export function describeActor(
  actor: string,
  parentId: string | null,
  names: KeyNames = new Map(),
): string {
  if (parentId !== null && actor === parentId) return 'the account key';
  switch (actor) {
    case 'cli':
      return 'the gateway’s command line';
    case 'admin':
      return 'the operator';
    case 'system':
      return 'the gateway';
    default: {
      const name = names.get(actor);
      return name === undefined ? `key ${actor}` : `key “${name}”`;
    }
  }
}

const fieldLabels: Record<string, string> = {
  name: 'Name',
  limit_usd: 'Limit',
  grace_usd: 'Grace',
  allocated_usd: 'Allocated',
  recharge_usd: 'Recharge',
  credit_usd: 'Credit',
  expires_at: 'Expiry',
  disabled: 'Disabled',
  revoked_at: 'Revoked at',
  key: 'Key',
  kind: 'Kind',
  parent_id: 'Parent key',
};

function describeValue(field: string, value: unknown, names: KeyNames): string {
  if (value === null || value === undefined) return field === 'expires_at' ? 'never' : 'none';
  if (field.endsWith('_usd') && typeof value === 'number') return formatUsd(value);
  if ((field === 'expires_at' || field.endsWith('_at')) && typeof value === 'number') {
    return formatDateTime(value, 'seconds');
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (field === 'kind' && typeof value === 'string') return identityLabels[value] ?? value;
  if (field === 'parent_id' && typeof value === 'string' && names.has(value)) {
    return `“${names.get(value)}”`;
  }
  if (typeof value === 'string') return field === 'name' ? `“${value}”` : value;
  return JSON.stringify(value);
}

export interface ChangeLine {
  field: string;
  label: string;
  /** Null when the field had no value before (a new key). */
  from: string | null;
  to: string;
}

export function describeChanges(event: ChildKeyEvent, names: KeyNames = new Map()): ChangeLine[] {
  return Object.entries(event.changes).map(([field, change]) => ({
    field,
    label: fieldLabels[field] ?? field,
    from:
      event.action === 'create' || change.old === undefined
        ? null
        : describeValue(field, change.old, names),
    to: describeValue(field, change.new, names),
  }));
}
