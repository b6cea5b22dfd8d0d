/**
 * The create and edit forms of a child key: what a person types, checked before anything is
 * sent, with one message per field that says what to write instead. The BFF checks again.
 */
import {
  profileNamePattern,
  type ChildKey,
  type CreateChildKeyRequest,
  type UpdateChildKeyRequest,
} from '../../../contract/workbench-api';
import { decimalToNumber, readTypedAmount } from '../../../contract/decimal';

/** The gateway's largest amount and name (gateway/keys/key-admin.ts). */
export const maxUsd = 1_000_000;
export const maxNameLength = 100;

type Parsed<T> = { value: T } | { error: string };

/**
 * A USD amount as typed ("12.50", "$12.50"); whole nano-dollars at most, as the gateway counts.
 * Empty text is null: the caller decides whether the field may be left out.
 */
export function parseUsdInput(text: string): Parsed<number | null> {
  const trimmed = text.trim().replace(/^\$\s*/, '');
  if (trimmed === '') return { value: null };
  if (trimmed.startsWith('-')) return { error: 'The amount must be 0 or more.' };
  // Read as the catalog's price filter reads amounts: a decimal comma ("1,5") is accepted, and an
  // ambiguous "1,000" is asked about rather than guessed.
  const read = readTypedAmount(trimmed);
  if (read.problem !== null && trimmed.includes(',')) return { error: read.problem };
  const decimal = read.value;
  if (!decimal) return { error: 'Enter an amount in USD, e.g. 12.50.' };
  if (decimal.scale > 9) return { error: 'At most 9 decimals: the gateway counts nano-dollars.' };
  const value = decimalToNumber(decimal);
  if (value > maxUsd) return { error: `At most $${maxUsd.toLocaleString('en-US')}.` };
  return { value };
}

/** A Unix time (seconds) as the value of an `<input type="datetime-local">`, in local time. */
export function toDateTimeLocal(seconds: number | null): string {
  if (seconds === null) return '';
  const date = new Date(seconds * 1000);
  const pad = (part: number) => String(part).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** An `<input type="datetime-local">` value as Unix seconds; empty is null (no expiry). */
export function parseExpiryInput(text: string, nowMs: number): Parsed<number | null> {
  if (text.trim() === '') return { value: null };
  // A date and time without an offset is local time (ECMAScript), as the input shows it.
  const time = new Date(text).getTime();
  if (!Number.isFinite(time)) return { error: 'Enter a date and time, or leave it empty.' };
  if (time <= nowMs) return { error: 'The expiry must be in the future.' };
  return { value: Math.floor(time / 1000) };
}

function checkName(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed === '') return 'Give the key a name, e.g. the script or person using it.';
  if (trimmed.length > maxNameLength) return `At most ${maxNameLength} characters.`;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) return 'No control characters.';
  return null;
}

export type ChildKeyKindChoice = CreateChildKeyRequest['kind'];

export interface CreateFormValues {
  kind: ChildKeyKindChoice;
  name: string;
  /** Allocated children only. */
  limit: string;
  /** `datetime-local` value; empty for no expiry. */
  expires: string;
  /** Empty: the server derives one from the name. */
  profileName: string;
}

export type FormErrors = Partial<Record<'name' | 'limit' | 'expires' | 'profileName', string>>;

/** The create form's fields by the names the BFF and gateway use, with the labels people see. */
const createFormFields: Record<string, { field: keyof FormErrors; label: string }> = {
  name: { field: 'name', label: 'Name' },
  limit_usd: { field: 'limit', label: 'Limit (USD)' },
  expires_at: { field: 'expires', label: 'Expires' },
  profile_name: { field: 'profileName', label: 'Profile name' },
};

/**
 * A server refusal of the create form that names one of its fields (the API's `field`, or the
 * field quoted in the message, as the gateway writes "'limit_usd' needs …"), as that field's
 * error, with the form's label in place of the API name. Null when it names none of them.
 */
export function createFormServerError(
  message: string,
  apiField: string | undefined,
): { field: keyof FormErrors; message: string } | null {
  const apiName =
    (apiField !== undefined && Object.hasOwn(createFormFields, apiField) ? apiField : undefined) ??
    Object.keys(createFormFields).find((name) =>
      new RegExp(`['‘’“”"\`]${name}['‘’“”"\`]`).test(message),
    );
  if (apiName === undefined) return null;
  const { field, label } = createFormFields[apiName]!;
  const named = new RegExp(`['‘’“”"\`]?\\b${apiName}\\b['‘’“”"\`]?`, 'g');
  return { field, message: message.replace(named, `“${label}”`) };
}

export type FormCheck<T> = { ok: true; value: T } | { ok: false; errors: FormErrors };

export function checkCreateForm(
  values: CreateFormValues,
  nowMs: number,
): FormCheck<CreateChildKeyRequest> {
  const errors: FormErrors = {};
  const nameError = checkName(values.name);
  if (nameError) errors.name = nameError;

  let limit: number | null = null;
  if (values.kind === 'allocated_child') {
    const parsed = parseUsdInput(values.limit);
    if ('error' in parsed) errors.limit = parsed.error;
    else if (parsed.value === null) errors.limit = 'Give the key a limit in USD, e.g. 5.00.';
    else limit = parsed.value;
  }

  const expiry = parseExpiryInput(values.expires, nowMs);
  if ('error' in expiry) errors.expires = expiry.error;

  const profileName = values.profileName.trim();
  if (profileName !== '' && !profileNamePattern.test(profileName)) {
    errors.profileName =
      'Use 1–64 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit.';
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const request: CreateChildKeyRequest = { kind: values.kind, name: values.name.trim() };
  if (limit !== null) request.limit_usd = limit;
  if ('value' in expiry && expiry.value !== null) request.expires_at = expiry.value;
  if (profileName !== '') request.profile_name = profileName;
  return { ok: true, value: request };
}

export interface EditFormValues {
  name: string;
  /** Allocated children only. */
  limit: string;
  expires: string;
}

/** An amount as the limit field shows it: cents as cents ("2.50"), finer amounts in full. */
function usdInputText(value: number): string {
  const cents = value.toFixed(2);
  return Number(cents) === value ? cents : String(value);
}

/** The edit form as it opens: the key's current values. */
export function editFormValuesOf(key: ChildKey): EditFormValues {
  return {
    name: key.name,
    limit: key.limit_usd === null ? '' : usdInputText(key.limit_usd),
    expires: toDateTimeLocal(key.expires_at),
  };
}

/** Only the fields that changed; an empty object when nothing did. */
export function checkEditForm(
  key: ChildKey,
  values: EditFormValues,
  nowMs: number,
): FormCheck<UpdateChildKeyRequest> {
  const errors: FormErrors = {};
  const changes: UpdateChildKeyRequest = {};

  const nameError = checkName(values.name);
  if (nameError) errors.name = nameError;
  else if (values.name.trim() !== key.name) changes.name = values.name.trim();

  if (key.kind === 'allocated_child') {
    const parsed = parseUsdInput(values.limit);
    if ('error' in parsed) errors.limit = parsed.error;
    else if (parsed.value === null) errors.limit = 'Give the key a limit in USD, e.g. 5.00.';
    else if (parsed.value !== key.limit_usd) changes.limit_usd = parsed.value;
  }

  // An unchanged expiry is not checked again: one that passed is still what the key has.
  if (values.expires !== toDateTimeLocal(key.expires_at)) {
    const expiry = parseExpiryInput(values.expires, nowMs);
    if ('error' in expiry) errors.expires = expiry.error;
    else changes.expires_at = expiry.value;
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: changes };
}
