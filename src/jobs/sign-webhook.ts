import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';

/**
 * The master secret every account's webhook secret derives from: the config's
 * `media.jobs.webhookSecret`, else `<dataDir>/webhook-secret` (32 random bytes, made once, 0600).
 * Instances sharing a database must share it through the config, or their signatures differ.
 */
export function readMasterSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'webhook-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    const secret = randomBytes(32).toString('base64url');
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
      return secret;
    } catch {
      // Another process wrote it first: use theirs.
      return fs.readFileSync(file, 'utf8').trim();
    }
  }
}

/** An account's webhook secret, Standard Webhooks style (`whsec_` + base64 of 32 bytes). */
export function accountWebhookSecret(master: string, accountId: string): string {
  return `whsec_${createHmac('sha256', master).update(`webhook:${accountId}`).digest('base64')}`;
}

/**
 * The Standard Webhooks headers of one delivery: `webhook-id` (the same on every retry, so a
 * receiver can drop a repeat), `webhook-timestamp` (Unix s) and `webhook-signature`
 * (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the secret's bytes). Signed by the
 * `standardwebhooks` library, whose `verify` receivers can use as is.
 */
export function signWebhook(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, at, body),
  };
}

/** When the next attempt goes after `attempts` failed ones: 1 s, 2 s, 4 s … at most 5 minutes. */
export function webhookBackoffMs(attempts: number): number {
  return Math.min(300_000, 1000 * 2 ** Math.max(0, attempts - 1));
}
