/**
 * Standard Webhooks signing (standardwebhooks.com): a `whsec_` secret of 32 random bytes, and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. The secret is kept sealed
 * with a key derived from the key pepper, so a copy of the database does not give it away.
 */
import crypto from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export const newSecret = (): string => SECRET_PREFIX + crypto.randomBytes(32).toString('base64');

/** The headers a delivery carries; `timestampSeconds` is the try's, the id the delivery's. */
export function signedHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const signature = crypto
    .createHmac('sha256', key)
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}

export type SecretSeal = { seal(secret: string): string; open(sealed: string): string };

/** AES-256-GCM under a key derived (HKDF) from the pepper; `v1.<iv>.<tag>.<ciphertext>`. */
export function secretSeal(pepper: string): SecretSeal {
  const key = Buffer.from(
    crypto.hkdfSync('sha256', pepper, Buffer.alloc(0), 'gateway webhook secrets v1', 32),
  );
  return {
    seal(secret) {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), sealed]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) {
        throw new Error('A webhook secret is stored in a form this gateway cannot read.');
      }
      const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(data, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}
