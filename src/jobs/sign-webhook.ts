import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { syncDirNow } from '../util/index.ts';

/** Fewer characters than this is not a secret the gateway made (it makes 43), and too weak to sign with. */
const MIN_SECRET_CHARS = 32;

/**
 * The master secret every account's webhook secret derives from: the config's
 * `media.jobs.webhookSecret`, else `<dataDir>/webhook-secret` (32 random bytes, made once, 0600).
 * Instances sharing a database must share it through the config, or their signatures differ.
 *
 * The file is made whole or not at all (written to a side file, synced, then linked to its name:
 * of two processes making it at once, the first link wins and both use it). An empty file (made
 * by an earlier version whose start was cut short before the bytes reached the disk) holds no
 * secret: a new one is made, and `warn` says so. One with fewer than 32 characters is refused (an
 * Error naming the file), never signed with: an empty or tiny key makes every account's secret
 * computable from its id.
 */
export function readMasterSecret(configured: string | undefined, dataDir: string, warn: (message: string) => void = () => undefined): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'webhook-secret');
  let text: string | undefined;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text !== undefined && text.trim() === '') {
    warn(`${file} was empty (its making was cut short): a new webhook signing secret is made; receivers fetch theirs again from GET /v1/webhooks/secret`);
    fs.rmSync(file, { force: true });
    text = undefined;
  }
  return checked(file, text ?? makeSecret(file, dataDir));
}

/** A new secret linked into place whole, or the one another process linked first. */
function makeSecret(file: string, dataDir: string): string {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const side = `${file}.tmp-${process.pid}`;
  const secret = randomBytes(32).toString('base64url');
  const fd = fs.openSync(side, 'w', 0o600);
  try {
    fs.writeSync(fd, `${secret}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(side, file);
    syncDirNow(dataDir);
    return `${secret}\n`;
  } catch (error) {
    // Another process made it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return fs.readFileSync(file, 'utf8');
  } finally {
    fs.rmSync(side, { force: true });
  }
}

function checked(file: string, text: string): string {
  const secret = text.trim();
  if (secret.length < MIN_SECRET_CHARS) {
    throw new Error(
      `${file} holds ${secret.length} character${secret.length === 1 ? '' : 's'}, too few for the webhook signing secret (the gateway makes 43). It is left as it is: delete it to have a new one made (receivers then fetch theirs again from GET /v1/webhooks/secret), or set media.jobs.webhookSecret`,
    );
  }
  return secret;
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
