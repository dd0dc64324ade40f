import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MEDIA_LIMITS } from '../../src/media/media-limits.ts';
import type { AccountRecord, ApiKeyRecord, MediaRecord, SessionRecord } from '../../src/store/types.ts';

/** How much to put in a data dir, written straight to its files (no server, no fsync per record). */
export interface FillOptions {
  accounts: number;
  keysPerAccount: number;
  sessionsPerAccount: number;
  /** Accounts whose Media Library is filled to its byte budget (the first ones). */
  mediaAccounts: number;
  /** Records per filled account; their size is the account's byte budget divided among them. */
  mediaPerAccount: number;
  /** A scrypt hash to give every account (so they can log in), or null. */
  passwordHash?: string | null;
}

export interface FilledDataDir {
  accounts: AccountRecord[];
  /** Bytes of media.jsonl. */
  mediaBytes: number;
  /** Bytes of db.json. */
  dbBytes: number;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** The largest record that still fits `bytes` as stored: the prompt takes what is left. */
export function mediaRecordOfSize(accountId: string, bytes: number, createdAt: number): MediaRecord {
  const record: MediaRecord = {
    id: randomBytes(16).toString('hex'),
    accountId,
    media_type: 'video',
    status: 'completed',
    model: 'bench/video',
    prompt: '',
    parameters: { seed: 42 },
    result_urls: ['https://cdn.example.test/v.mp4'],
    primary_url: 'https://cdn.example.test/v.mp4',
    preview_url: null,
    file_size_bytes: 1,
    duration_seconds: 5,
    width: 1280,
    height: 720,
    error: null,
    created_at: createdAt,
    completed_at: createdAt,
    provider_task_id: null,
    input_tokens: null,
    output_tokens: null,
    cost_credits: null,
  };
  // Fill the prompt, then the parameters, then result URLs, each up to its own bound.
  let room = bytes - Buffer.byteLength(JSON.stringify(record));
  record.prompt = 'p'.repeat(Math.max(0, Math.min(room, MEDIA_LIMITS.promptChars)));
  room -= record.prompt.length;
  if (room > 40) {
    record.parameters = { seed: 42, notes: 'n'.repeat(Math.min(room - 20, MEDIA_LIMITS.parametersBytes - 40)) };
    room = bytes - Buffer.byteLength(JSON.stringify(record));
  }
  for (let i = 0; room > 64 && record.result_urls.length < MEDIA_LIMITS.resultUrls; i++) {
    const url = `https://cdn.example.test/${i}/${'u'.repeat(Math.min(room - 64, MEDIA_LIMITS.urlChars - 40))}`;
    record.result_urls.push(url);
    room -= url.length + 3;
  }
  return record;
}

/** Writes db.json (schema 2) and media.jsonl for a data dir that does not exist yet. */
export function fillDataDir(dataDir: string, options: FillOptions): FilledDataDir {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const now = Date.now();
  const accounts: AccountRecord[] = [];
  const apiKeys: ApiKeyRecord[] = [];
  const sessions: SessionRecord[] = [];
  for (let a = 0; a < options.accounts; a++) {
    const id = `acct_fill${a.toString().padStart(6, '0')}`;
    accounts.push({ id, email: `fill${a}@example.test`, passwordHash: options.passwordHash ?? null, tier: 'enterprise', credits: 1_000_000, monthlyTokenQuota: null, suspended: false, rpm: null, createdAt: now, billedSeq: 0 });
    for (let k = 0; k < options.keysPerAccount; k++) {
      apiKeys.push({ id: `key_${a}_${k}`, accountId: id, name: `key ${k}`, hash: sha(`key ${a} ${k}`), preview: 'sk-gw-fill…0000', rpm: null, expiresAt: null, revokedAt: null, createdAt: now });
    }
    for (let s = 0; s < options.sessionsPerAccount; s++) {
      sessions.push({ id: `sess_${a}_${s}`, accountId: id, hash: sha(`session ${a} ${s}`), createdAt: now, expiresAt: now + 7 * 86_400_000 });
    }
  }
  const dbFile = path.join(dataDir, 'db.json');
  fs.writeFileSync(dbFile, JSON.stringify({ version: 2, accounts, apiKeys, sessions, files: [], batches: [] }), { mode: 0o600 });

  const mediaFile = path.join(dataDir, 'media.jsonl');
  const fd = fs.openSync(mediaFile, 'w', 0o600);
  const perRecord = Math.floor(MEDIA_LIMITS.bytesPerAccount / Math.max(1, options.mediaPerAccount));
  const recordBytes = Math.min(perRecord, MEDIA_LIMITS.recordBytes);
  const createdAt = Math.floor(now / 1000) - 60;
  try {
    for (let a = 0; a < Math.min(options.mediaAccounts, accounts.length); a++) {
      let batch = '';
      for (let r = 0; r < options.mediaPerAccount; r++) {
        batch += `{"put":${JSON.stringify(mediaRecordOfSize(accounts[a].id, recordBytes, createdAt))}}\n`;
        if (batch.length > 4 << 20) {
          fs.writeSync(fd, batch);
          batch = '';
        }
      }
      if (batch) fs.writeSync(fd, batch);
    }
  } finally {
    fs.closeSync(fd);
  }
  return { accounts, mediaBytes: fs.statSync(mediaFile).size, dbBytes: fs.statSync(dbFile).size };
}
