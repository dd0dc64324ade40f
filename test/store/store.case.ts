import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AccountRecord, ApiKeyRecord, BatchRecord, ConversationItemsPage, ConversationTurn, FileRecord, MediaRecord, SessionRecord, Store } from '../../src/store/index.ts';
import { recordBytes } from '../../src/media/media-limits.ts';
import { createAccount } from '../../src/admin/accounts.ts';
import { GatewayError } from '../../src/errors/index.ts';
import { EmailTakenError } from '../../src/store/index.ts';
import { systemClock } from '../../src/util/clock.ts';
import { until } from '../helpers/until.ts';

/**
 * A backend under test: `open` gives a store on fresh, empty data; `reopen` closes a store
 * and opens another on the same data (a restart, or a second instance of a shared database).
 */
export interface StoreBackend {
  open(): Promise<Store>;
  reopen(store: Store): Promise<Store>;
  /** Opens another store on `store`'s data while it stays open (a second instance): backends several instances share. */
  second?(store: Store): Promise<Store>;
  /** The backend shares credits across instances (`store.credits`): its contract runs too. */
  sharedCredits?: boolean;
}

let counter = 0;
const uid = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(++counter).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

export function anAccount(overrides: Partial<AccountRecord> = {}): AccountRecord {
  const id = overrides.id ?? uid('acct');
  return { id, email: `${id}@example.test`, passwordHash: null, tier: 'free', credits: 100, monthlyTokenQuota: null, suspended: false, rpm: null, createdAt: 1_700_000_000_000, ...overrides };
}

export function aKey(accountId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const id = overrides.id ?? uid('key');
  const hash = [...id.padEnd(64, '0')].map((c) => (c.charCodeAt(0) % 16).toString(16)).join('');
  return { id, accountId, name: 'k', hash, preview: 'sk-gw-ab…cd', rpm: null, expiresAt: null, revokedAt: null, createdAt: 1_700_000_000_000, ...overrides };
}

export function aSession(accountId: string, expiresAt: number): SessionRecord {
  const id = uid('sess');
  const hash = [...id.padEnd(64, '1')].map((c) => ((c.charCodeAt(0) * 7) % 16).toString(16)).join('');
  return { id, accountId, hash, createdAt: 1, expiresAt };
}

export function aMedia(accountId: string, overrides: Partial<MediaRecord> = {}): MediaRecord {
  return {
    id: uid('media'),
    accountId,
    media_type: 'image',
    status: 'pending',
    model: 'mock/image',
    prompt: 'a lighthouse',
    parameters: {},
    result_urls: [],
    primary_url: null,
    preview_url: null,
    file_size_bytes: null,
    duration_seconds: null,
    width: null,
    height: null,
    error: null,
    created_at: 1_700_000_000,
    completed_at: null,
    provider_task_id: null,
    input_tokens: null,
    output_tokens: null,
    cost_credits: null,
    ...overrides,
  };
}

export function aFile(accountId: string, overrides: Partial<FileRecord> = {}): FileRecord {
  return { id: uid('file'), accountId, bytes: 0, created_at: 1_700_000_000, expires_at: null, filename: 'input.jsonl', purpose: 'batch', ...overrides };
}

export function aBatch(accountId: string, overrides: Partial<BatchRecord> = {}): BatchRecord {
  return {
    id: uid('batch'),
    accountId,
    keyId: null,
    endpoint: '/v1/chat/completions',
    input_file_id: 'file_in',
    completion_window: '24h',
    status: 'validating',
    output_file_id: null,
    error_file_id: null,
    errors: null,
    created_at: 1_700_000_000,
    in_progress_at: null,
    expires_at: 1_700_086_400,
    finalizing_at: null,
    completed_at: null,
    failed_at: null,
    expired_at: null,
    cancelling_at: null,
    cancelled_at: null,
    request_counts: { total: 0, completed: 0, failed: 0 },
    metadata: null,
    mode: 'emulated',
    native: null,
    lease: null,
    ...overrides,
  };
}

function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let node = root;
  for (let i = 0; i < depth; i++) {
    const next: Record<string, unknown> = {};
    node.n = next;
    node = next;
  }
  node.leaf = 'bottom';
  return root;
}

function depthOf(value: unknown): number {
  let depth = 0;
  let node = value as Record<string, unknown> | undefined;
  while (node && typeof node === 'object' && 'n' in node) {
    node = node.n as Record<string, unknown>;
    depth += 1;
  }
  return depth;
}

/** Registers the behaviour every Store backend must show (the port's contract, see src/store/repositories.ts). */
export function describeStore(name: string, backend: StoreBackend): void {
  describe(`${name}: Store contract`, () => {
    let open: Store[] = [];
    const fresh = async () => {
      const store = await backend.open();
      open.push(store);
      return store;
    };
    const restart = async (store: Store) => {
      open = open.filter((s) => s !== store);
      const next = await backend.reopen(store);
      open.push(next);
      return next;
    };
    afterEach(async () => {
      await Promise.all(open.map((s) => s.close()));
      open = [];
    });

    describe('accounts', () => {
      it('creates, finds (email case-insensitively), lists and updates; the cache sees each change at once', async () => {
        const store = await fresh();
        const a = await store.accounts.create(anAccount({ email: 'Mixed@Example.test' }));
        expect(store.cache.account(a.id)).toEqual(a);
        expect(await store.cache.account(a.id)).toEqual(a);
        expect((await store.accounts.findByEmail('mixed@example.TEST'))?.id).toBe(a.id);
        expect(await store.accounts.findByEmail('nobody@example.test')).toBeUndefined();
        const updated = await store.accounts.update(a.id, { tier: 'pro', suspended: true });
        expect(updated).toMatchObject({ id: a.id, tier: 'pro', suspended: true, credits: 100 });
        expect(store.cache.account(a.id)).toMatchObject({ tier: 'pro', suspended: true });
        expect(await store.accounts.update('acct_missing', { tier: 'pro' })).toBeUndefined();
        expect((await store.accounts.list()).map((x) => x.id)).toContain(a.id);
      });

      it('refuses a second account with an email taken (ignoring case), also when two creates race past the check', async () => {
        const store = await fresh();
        await store.accounts.create(anAccount({ email: 'Taken@Example.test' }));
        const twin = anAccount({ email: 'taken@example.TEST' });
        await expect(store.accounts.create(twin)).rejects.toBeInstanceOf(EmailTakenError);
        expect(store.cache.account(twin.id)).toBeUndefined();
        // Through the admin procedure: a sequential duplicate and the loser of a race get the same answer.
        const sequential = await createAccount(store, systemClock, { email: 'TAKEN@example.test' }).catch((e: unknown) => e);
        expect(sequential).toBeInstanceOf(GatewayError);
        expect(sequential).toMatchObject({ code: 'conflict', message: 'An account with email TAKEN@example.test already exists.' });
        // The password is hashed between the check and the insert: both creates pass the check.
        const raced = await Promise.allSettled(['Race@Example.test', 'race@example.test'].map((email) => createAccount(store, systemClock, { email, password: 'a long password' })));
        expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const [lost] = raced.filter((r) => r.status === 'rejected');
        expect(lost.reason).toBeInstanceOf(GatewayError);
        expect(lost.reason).toMatchObject({ code: 'conflict', message: expect.stringMatching(/^An account with email race@example\.test already exists\.$/i) });
        expect((await store.accounts.list()).filter((a) => a.email.toLowerCase() === 'race@example.test')).toHaveLength(1);
      });

      it('adjusts credits atomically, applied to the cache before the promise settles, and moves billedSeq forward only', async () => {
        const store = await fresh();
        const a = await store.accounts.create(anAccount({ credits: 10 }));
        const pending = store.accounts.adjustCredits(a.id, -2.5, { billedSeq: 7 });
        // The credit book reads the balance synchronously right after a charge.
        expect(store.cache.account(a.id)).toMatchObject({ credits: 7.5, billedSeq: 7 });
        await pending;
        await Promise.all([store.accounts.adjustCredits(a.id, 0.1), store.accounts.adjustCredits(a.id, 0.2), store.accounts.adjustCredits(a.id, -0.3, { billedSeq: 3 })]);
        expect(store.cache.account(a.id)).toMatchObject({ credits: 7.5, billedSeq: 7 });
        expect(await store.accounts.adjustCredits('acct_missing', 1)).toBeUndefined();
        await expect(store.accounts.adjustCredits(a.id, Number.POSITIVE_INFINITY)).rejects.toThrow(/finite/);
        expect(store.cache.account(a.id)?.credits).toBe(7.5);
      });

      it('keeps every change across a restart once flushed', async () => {
        let store = await fresh();
        const a = await store.accounts.create(anAccount({ credits: 5 }));
        void store.accounts.adjustCredits(a.id, -1, { billedSeq: 2 });
        await store.accounts.update(a.id, { rpm: 42 });
        await store.flush();
        store = await restart(store);
        expect(store.cache.account(a.id)).toMatchObject({ credits: 4, billedSeq: 2, rpm: 42 });
      });
    });

    describe('keys and sessions', () => {
      it('finds keys by hash through the cache and the port, lists them per account, and revokes', async () => {
        let store = await fresh();
        const a = await store.accounts.create(anAccount());
        const b = await store.accounts.create(anAccount());
        const ka = await store.keys.create(aKey(a.id));
        const kb = await store.keys.create(aKey(b.id));
        expect(store.cache.keyByHash(ka.hash)).toEqual(ka);
        expect(await store.keys.findByHash(kb.hash)).toEqual(kb);
        expect(store.cache.keyByHash('f'.repeat(64))).toBeUndefined();
        expect((await store.keys.list(a.id)).map((k) => k.id)).toEqual([ka.id]);
        expect((await store.keys.list()).map((k) => k.id)).toEqual(expect.arrayContaining([ka.id, kb.id]));
        const revoked = await store.keys.update(ka.id, { revokedAt: 123 });
        expect(revoked).toMatchObject({ id: ka.id, hash: ka.hash, accountId: a.id, revokedAt: 123 });
        expect(store.cache.keyByHash(ka.hash)?.revokedAt).toBe(123);
        expect(await store.keys.update('key_missing', { revokedAt: 1 })).toBeUndefined();
        const cached = store.cache.keyByHash(kb.hash);
        const used = store.keys.markUsed(kb.id, 5_000);
        expect(store.cache.keyByHash(kb.hash)?.lastUsedAt).toBe(5_000);
        // In place: a copy per use (once a second) gave the key a new hidden class now and then, and
        // V8 deoptimised every function that reads keys on the request path.
        expect(store.cache.keyByHash(kb.hash)).toBe(cached);
        await used;
        await store.keys.markUsed(kb.id, 4_000);
        expect(store.cache.keyByHash(kb.hash)?.lastUsedAt).toBe(5_000);
        await store.keys.markUsed('key_missing', 1);
        await store.flush();
        store = await restart(store);
        expect(store.cache.keyByHash(ka.hash)?.revokedAt).toBe(123);
        expect(await store.keys.get(kb.id)).toEqual({ ...kb, lastUsedAt: 5_000 });
      });

      it('opens, finds, deletes and purges sessions', async () => {
        let store = await fresh();
        const a = await store.accounts.create(anAccount());
        const live = await store.sessions.create(aSession(a.id, 2_000));
        const old = await store.sessions.create(aSession(a.id, 1_000));
        const gone = await store.sessions.create(aSession(a.id, 5_000));
        expect(store.cache.sessionByHash(live.hash)).toEqual(live);
        expect(await store.sessions.findByHash(old.hash)).toEqual(old);
        expect(await store.sessions.delete(gone.id)).toBe(true);
        expect(await store.sessions.delete(gone.id)).toBe(false);
        expect(store.cache.sessionByHash(gone.hash)).toBeUndefined();
        expect(await store.sessions.purgeExpired(1_000)).toBe(1);
        expect(store.cache.sessionByHash(old.hash)).toBeUndefined();
        store = await restart(store);
        expect(store.cache.sessionByHash(live.hash)).toEqual(live);
        expect(store.cache.sessionByHash(old.hash)).toBeUndefined();
      });
    });

    describe('media', () => {
      it('lists an account newest first with filters, pages and totals; limit 0 counts only', async () => {
        const store = await fresh();
        const owner = uid('acct');
        const other = uid('acct');
        const made: MediaRecord[] = [];
        for (let i = 0; i < 7; i++) {
          made.push(await store.media.create(aMedia(owner, { created_at: 1_000 + Math.floor(i / 2), media_type: i % 3 === 0 ? 'video' : 'image', status: i === 6 ? 'completed' : 'pending' })));
        }
        await store.media.create(aMedia(other, { created_at: 5_000 }));
        const all = await store.media.list({ accountId: owner, offset: 0, limit: 100 });
        expect(all.total).toBe(7);
        // Newest first; records of the same second: the later-created first.
        expect(all.data.map((m) => m.id)).toEqual([...made].reverse().map((m) => m.id));
        const page = await store.media.list({ accountId: owner, offset: 2, limit: 2 });
        expect(page).toEqual({ data: all.data.slice(2, 4), total: 7 });
        expect((await store.media.list({ accountId: owner, mediaType: 'video', offset: 0, limit: 10 })).total).toBe(3);
        expect((await store.media.list({ accountId: owner, status: 'completed', offset: 0, limit: 10 })).data.map((m) => m.id)).toEqual([made[6].id]);
        expect((await store.media.list({ accountId: owner, notBefore: 1_002, offset: 0, limit: 10 })).total).toBe(3);
        expect(await store.media.list({ accountId: owner, offset: 0, limit: 0 })).toEqual({ data: [], total: 7 });
        // Usage counts records and their bytes as stored (JSON, UTF-8), without the expired ones.
        // In the media layer's own units: its quota check adds recordBytes(new record) to this usage.
        const bytesOf = (records: MediaRecord[]) => records.reduce((n, r) => n + recordBytes(r), 0);
        expect(await store.media.usage(owner)).toEqual({ records: 7, bytes: bytesOf(made) });
        expect(await store.media.usage(owner, 1_002)).toEqual({ records: 3, bytes: bytesOf(made.slice(4)) });
        expect(await store.media.usage('acct_nobody')).toEqual({ records: 0, bytes: 0 });
        expect((await store.media.list({ offset: 0, limit: 1 })).data[0].accountId).toBe(other);
      });

      it('updates (owner and id stay), deletes and purges by age, across a restart', async () => {
        let store = await fresh();
        const owner = uid('acct');
        const young = await store.media.create(aMedia(owner, { created_at: 2_000 }));
        const old = await store.media.create(aMedia(owner, { created_at: 1_000 }));
        const doomed = await store.media.create(aMedia(owner, { created_at: 2_000 }));
        const patched = await store.media.update(young.id, { status: 'completed', result_urls: ['http://x/1.png'], completed_at: 2_001 });
        expect(patched).toMatchObject({ id: young.id, accountId: owner, status: 'completed', result_urls: ['http://x/1.png'] });
        expect(await store.media.update('missing', { status: 'failed' })).toBeUndefined();
        expect(await store.media.delete(doomed.id)).toBe(true);
        expect(await store.media.delete(doomed.id)).toBe(false);
        expect(await store.media.purgeCreatedBefore(1_500)).toBe(1);
        expect(await store.media.get(old.id)).toBeUndefined();
        await store.flush();
        store = await restart(store);
        expect(await store.media.get(young.id)).toEqual(patched);
        expect(await store.media.get(doomed.id)).toBeUndefined();
        expect((await store.media.list({ accountId: owner, offset: 0, limit: 10 })).total).toBe(1);
      });

      it('changes a record from its freshest state in one step: concurrent changes never write over each other', async () => {
        const store = await fresh();
        const owner = uid('acct');
        const record = await store.media.create(aMedia(owner, { job: { open: true, lease: null, state: { seen: [] } } }));
        // A cancel and polls racing (routes, runners, other instances): each change must read what the others wrote.
        const seenBy = (r: MediaRecord) => r.job!.state.seen as number[];
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.media.updateWith(record.id, (current) => ({ id: 'other', accountId: 'other', job: { ...current.job!, state: { seen: [...seenBy(current), i] } } })),
          ),
        );
        const stored = (await store.media.get(record.id))!;
        expect([...seenBy(stored)].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
        expect(stored).toMatchObject({ id: record.id, accountId: owner });
        // No change asked for: the record as stored; a missing one: undefined.
        expect(await store.media.updateWith(record.id, () => undefined)).toEqual(stored);
        expect(await store.media.updateWith('missing', () => ({ status: 'failed' }))).toBeUndefined();
      });

      it('stores values nested thousands deep and reads them back (a write never throws on accepted data)', async () => {
        let store = await fresh();
        const owner = uid('acct');
        const record = await store.media.create(aMedia(owner, { parameters: { deep: nested(6_000) } }));
        expect(depthOf((await store.media.get(record.id))?.parameters.deep)).toBe(6_000);
        await store.flush();
        store = await restart(store);
        expect(depthOf((await store.media.get(record.id))?.parameters.deep)).toBe(6_000);
      });
    });

    describe('files', () => {
      it('stores contents byte for byte, reads them by owner only, lists newest or oldest first with after/has_more, deletes', async () => {
        let store = await fresh();
        const a = uid('acct');
        const b = uid('acct');
        const bytes = Buffer.from('{"custom_id":"1"}\n\u00e9\u{1F642}\n\0binary');
        const made: FileRecord[] = [];
        for (let i = 0; i < 5; i++) made.push(await store.files.create(aFile(a, { created_at: 1_000 + Math.floor(i / 2), bytes: bytes.length, purpose: i === 4 ? 'user_data' : 'batch' }), bytes));
        const theirs = await store.files.create(aFile(b, { created_at: 9_000 }), Buffer.from('x'));
        expect(await store.files.get(a, made[0].id)).toEqual(made[0]);
        expect(await store.files.get(b, made[0].id)).toBeUndefined();
        expect((await store.files.content(a, made[1].id))?.equals(bytes)).toBe(true);
        expect(await store.files.content(b, made[1].id)).toBeUndefined();
        expect(await store.files.content(a, 'file-missing')).toBeUndefined();
        const pieces: Buffer[] = [];
        for await (const piece of (await store.files.contentChunks(a, made[1].id))!) pieces.push(piece);
        expect(Buffer.concat(pieces).equals(bytes)).toBe(true);
        expect(await store.files.contentChunks(b, made[1].id)).toBeUndefined();
        expect(await store.files.contentChunks(a, 'file-missing')).toBeUndefined();
        const all = await store.files.list({ accountId: a, limit: 100 });
        expect(all).toEqual({ data: [...made].reverse(), hasMore: false });
        const first = await store.files.list({ accountId: a, limit: 2 });
        expect(first).toEqual({ data: all.data.slice(0, 2), hasMore: true });
        const next = await store.files.list({ accountId: a, limit: 2, after: first.data[1].id });
        expect(next).toEqual({ data: all.data.slice(2, 4), hasMore: true });
        expect(await store.files.list({ accountId: a, limit: 2, after: all.data[4].id })).toEqual({ data: [], hasMore: false });
        // Oldest first: creation order (ties on created_at by creation), the same cursor.
        expect(await store.files.list({ accountId: a, limit: 100, order: 'asc' })).toEqual({ data: made, hasMore: false });
        const oldest = await store.files.list({ accountId: a, limit: 2, order: 'asc' });
        expect(oldest).toEqual({ data: made.slice(0, 2), hasMore: true });
        expect(await store.files.list({ accountId: a, limit: 2, order: 'asc', after: oldest.data[1].id })).toEqual({ data: made.slice(2, 4), hasMore: true });
        expect(await store.files.list({ accountId: a, limit: 2, order: 'asc', after: made[3].id })).toEqual({ data: [made[4]], hasMore: false });
        expect(await store.files.list({ accountId: a, limit: 2, order: 'asc', after: made[4].id })).toEqual({ data: [], hasMore: false });
        expect((await store.files.list({ accountId: a, limit: 10, order: 'asc', purpose: 'batch', after: made[1].id })).data).toEqual(made.slice(2, 4));
        expect((await store.files.list({ accountId: a, limit: 10, purpose: 'user_data' })).data.map((f) => f.id)).toEqual([made[4].id]);
        expect((await store.files.list({ accountId: b, limit: 10 })).data).toEqual([theirs]);
        expect(await store.files.delete(b, made[0].id)).toBe(false);
        expect(await store.files.wasDeleted(a, made[0].id)).toBe(false);
        expect(await store.files.delete(a, made[0].id)).toBe(true);
        expect(await store.files.delete(a, made[0].id)).toBe(false);
        expect(await store.files.content(a, made[0].id)).toBeUndefined();
        // The id is remembered as the account's deleted file (a conversation may still name it), for no one else, and no other id.
        expect(await store.files.wasDeleted(a, made[0].id)).toBe(true);
        expect(await store.files.wasDeleted(b, made[0].id)).toBe(false);
        expect(await store.files.wasDeleted(a, made[1].id)).toBe(false);
        expect(await store.files.wasDeleted(a, 'file-missing')).toBe(false);
        await store.flush();
        store = await restart(store);
        expect(await store.files.wasDeleted(a, made[0].id)).toBe(true);
        expect(await store.files.get(a, made[0].id)).toBeUndefined();
        expect((await store.files.content(a, made[2].id))?.equals(bytes)).toBe(true);
        expect((await store.files.list({ accountId: a, limit: 10 })).data).toHaveLength(4);
      });
    });

    describe('expired files', () => {
      it('names the files whose expires_at has come, any account\'s, at most limit; none without one', async () => {
        const store = await fresh();
        const a = uid('acct');
        const b = uid('acct');
        const now = 1_800_000_000;
        const gone = await store.files.create(aFile(a, { expires_at: now - 10 }), Buffer.from('a'));
        const due = await store.files.create(aFile(b, { expires_at: now }), Buffer.from('b'));
        await store.files.create(aFile(a, { expires_at: now + 1 }), Buffer.from('c'));
        await store.files.create(aFile(a), Buffer.from('d'));
        const found = await store.files.expired(now, 10);
        expect(found.filter((f) => f.accountId === a || f.accountId === b).sort((x, y) => x.id.localeCompare(y.id))).toEqual(
          [{ accountId: a, id: gone.id }, { accountId: b, id: due.id }].sort((x, y) => x.id.localeCompare(y.id)),
        );
        expect(await store.files.expired(now, 1)).toHaveLength(1);
      });
    });

    describe('uploads', () => {
      it('takes chunks at their offset only, holds the declared size in reservedBy, stores the file on finish; an expired one is gone', async () => {
        const store = await fresh();
        const a = uid('acct');
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-upload-'));
        const stage = (text: string) => {
          const file = path.join(dir, uid('part'));
          fs.writeFileSync(file, text);
          return file;
        };
        const now = 1_800_000_000_000;
        const file = aFile(a, { bytes: 10, purpose: 'user_data', mimeType: 'text/plain' });
        await store.uploads.start({ id: 'up-1', file, received: 0, expiresAt: now + 60_000 });
        expect(await store.uploads.get(a, 'up-1', now)).toEqual({ id: 'up-1', file, received: 0, expiresAt: now + 60_000 });
        expect(await store.uploads.get(uid('acct'), 'up-1', now)).toBeUndefined();
        expect(await store.uploads.reservedBy(a, now)).toEqual({ uploads: 1, bytes: 10 });
        const late = stage('zzzz');
        expect(await store.uploads.append(a, 'up-1', 4, late, now)).toBeUndefined();
        expect(fs.existsSync(late)).toBe(false);
        expect(await store.uploads.append(a, 'up-1', 0, stage('hello'), now)).toBe(5);
        expect(await store.uploads.finish(a, 'up-1', { ...file, created_at: 5 }, now)).toBe(false);
        expect(await store.uploads.append(a, 'up-1', 5, stage('world'), now)).toBe(10);
        expect(await store.uploads.finish(a, 'up-1', { ...file, created_at: 5 }, now)).toBe(true);
        expect(await store.files.get(a, file.id)).toEqual({ ...file, created_at: 5 });
        expect((await store.files.content(a, file.id))?.toString()).toBe('helloworld');
        expect(await store.uploads.get(a, 'up-1', now)).toBeUndefined();
        expect(await store.uploads.reservedBy(a, now)).toEqual({ uploads: 0, bytes: 0 });

        const empty = aFile(a, { bytes: 0 });
        await store.uploads.start({ id: 'up-2', file: empty, received: 0, expiresAt: now + 60_000 });
        expect(await store.uploads.finish(a, 'up-2', empty, now)).toBe(true);
        expect((await store.files.content(a, empty.id))?.length).toBe(0);

        const abandoned = aFile(a, { bytes: 8 });
        await store.uploads.start({ id: 'up-3', file: abandoned, received: 0, expiresAt: now + 60_000 });
        expect(await store.uploads.append(a, 'up-3', 0, stage('half'), now)).toBe(4);
        expect(await store.uploads.get(a, 'up-3', now + 60_000)).toBeUndefined();
        expect(await store.uploads.append(a, 'up-3', 4, stage('more'), now + 60_000)).toBeUndefined();
        expect(await store.uploads.purgeExpired(now + 60_000)).toBe(1);
        expect(await store.uploads.purgeExpired(now + 60_000)).toBe(0);
        expect(await store.files.get(a, abandoned.id)).toBeUndefined();
        fs.rmSync(dir, { recursive: true, force: true });
      });

      it('a finish that comes while a chunk is still being written stores the whole file', async () => {
        const store = await fresh();
        const a = uid('acct');
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-upload-'));
        const head = path.join(dir, 'head');
        const tail = path.join(dir, 'tail');
        const big = Buffer.alloc(4_000_000, 'xy');
        fs.writeFileSync(head, 'abc');
        fs.writeFileSync(tail, big);
        const now = 1_800_000_000_000;
        const file = aFile(a, { bytes: 3 + big.length });
        await store.uploads.start({ id: 'up-race', file, received: 0, expiresAt: now + 60_000 });
        expect(await store.uploads.append(a, 'up-race', 0, head, now)).toBe(3);
        const appending = store.uploads.append(a, 'up-race', 3, tail, now);
        // Right after the chunk is counted (its bytes still being written on the file store), not 50 ms later.
        for (let turn = 0; turn < 10_000 && (await store.uploads.get(a, 'up-race', now))?.received !== file.bytes; turn++) await new Promise((r) => setImmediate(r));
        expect(await store.uploads.finish(a, 'up-race', file, now)).toBe(true);
        expect((await store.files.content(a, file.id))?.length).toBe(file.bytes);
        expect(await appending).toBe(file.bytes);
        fs.rmSync(dir, { recursive: true, force: true });
      });

      it('a chunk that comes while the one before is still being written never lands in its middle', async () => {
        const store = await fresh();
        const a = uid('acct');
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-upload-'));
        const stage = (name: string, content: Buffer | string) => {
          const file = path.join(dir, `${name}-${uid('part')}`);
          fs.writeFileSync(file, content);
          return file;
        };
        const big = Buffer.alloc(4_000_000, 'xy');
        const now = 1_800_000_000_000;
        const file = aFile(a, { bytes: 3 + big.length + 4 });
        await store.uploads.start({ id: 'up-next', file, received: 0, expiresAt: now + 60_000 });
        expect(await store.uploads.append(a, 'up-next', 0, stage('head', 'abc'), now)).toBe(3);
        const appending = store.uploads.append(a, 'up-next', 3, stage('big', big), now);
        // The next chunk, at its right offset, as soon as the one before is counted (a client that does not wait for the answer).
        for (let turn = 0; turn < 10_000 && (await store.uploads.get(a, 'up-next', now))?.received !== 3 + big.length; turn++) await new Promise((r) => setImmediate(r));
        let tail = await store.uploads.append(a, 'up-next', 3 + big.length, stage('tail', 'TAIL'), now);
        expect(await appending).toBe(3 + big.length);
        // Taken, or refused while the one before was written (then sent again, as a client does after a 400 naming the offset).
        tail ??= await store.uploads.append(a, 'up-next', 3 + big.length, stage('tail', 'TAIL'), now);
        expect(tail).toBe(file.bytes);
        expect(await store.uploads.finish(a, 'up-next', file, now)).toBe(true);
        const content = (await store.files.content(a, file.id))!;
        expect(content.length).toBe(file.bytes);
        expect(content.subarray(0, 3).toString()).toBe('abc');
        expect(content.subarray(content.length - 4).toString()).toBe('TAIL');
        expect(content.subarray(3, 3 + big.length).equals(big)).toBe(true);
        fs.rmSync(dir, { recursive: true, force: true });
      });
    });

    describe('files from a staged file', () => {
      it('takes over a file on disk (chunked past 1 MiB on PostgreSQL), counts bytes per account, deletes', async () => {
        let store = await fresh();
        const a = uid('acct');
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-stage-'));
        const big = Buffer.alloc(2_500_000 + 7, 'ab\n');
        const staged = path.join(dir, 'upload.part');
        fs.writeFileSync(staged, big);
        const record = await store.files.createFromFile(aFile(a, { bytes: big.length }), staged);
        expect(fs.existsSync(staged)).toBe(false);
        const small = await store.files.create(aFile(a, { bytes: 3 }), Buffer.from('xyz'));
        expect(await store.files.bytesOf(a)).toBe(big.length + 3);
        expect(await store.files.bytesOf(uid('acct'))).toBe(0);
        await store.flush();
        store = await restart(store);
        expect((await store.files.content(a, record.id))?.equals(big)).toBe(true);
        const pieces: Buffer[] = [];
        for await (const piece of (await store.files.contentChunks(a, record.id))!) pieces.push(piece);
        expect(pieces.length).toBeGreaterThan(1);
        expect(Buffer.concat(pieces).equals(big)).toBe(true);
        expect(await store.files.delete(a, record.id)).toBe(true);
        expect(await store.files.content(a, record.id)).toBeUndefined();
        expect(await store.files.bytesOf(a)).toBe(small.bytes);
        fs.rmSync(dir, { recursive: true, force: true });
      });

      // Before, on PostgreSQL a delete while the chunks were read ended the read quietly after the chunks already
      // given: a download (a batch's results) was answered 200 short of its bytes, as if whole.
      it('a file deleted while its contents are read: the read fails, never ends short as if whole', async () => {
        const store = await fresh();
        const a = uid('acct');
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-stage-'));
        const big = Buffer.alloc(2_500_000 + 7, 'ab\n');
        const staged = path.join(dir, 'upload.part');
        fs.writeFileSync(staged, big);
        const record = await store.files.createFromFile(aFile(a, { bytes: big.length }), staged);
        const iterator = (await store.files.contentChunks(a, record.id))![Symbol.asyncIterator]();
        const pieces: Buffer[] = [];
        const first = await iterator.next();
        if (!first.done) pieces.push(first.value);
        expect(await store.files.delete(a, record.id)).toBe(true);
        const rest = (async () => {
          for (let next = await iterator.next(); !next.done; next = await iterator.next()) pieces.push(next.value);
        })();
        // The file store's open descriptor reads on to the end; PostgreSQL's chunks are gone: an error, not an end.
        const failed = await rest.then(() => false, () => true);
        if (!failed) expect(Buffer.concat(pieces).equals(big)).toBe(true);
        fs.rmSync(dir, { recursive: true, force: true });
      });
    });

    describe('batches', () => {
      it('creates, updates (owner and id stay), lists newest first filtered by account and status, across a restart', async () => {
        let store = await fresh();
        const a = uid('acct');
        const b = uid('acct');
        const made: BatchRecord[] = [];
        for (let i = 0; i < 4; i++) made.push(await store.batches.create(aBatch(a, { created_at: 1_000 + i, metadata: i === 0 ? { k: 'v' } : null })));
        const theirs = await store.batches.create(aBatch(b, { created_at: 5_000 }));
        const updated = await store.batches.update(made[1].id, {
          status: 'failed',
          failed_at: 1_100,
          errors: { object: 'list', data: [{ code: 'invalid_json', message: 'line 2 is not JSON', line: 2, param: null }] },
        });
        expect(updated).toMatchObject({ id: made[1].id, accountId: a, status: 'failed', failed_at: 1_100 });
        expect(await store.batches.update('batch_missing', { status: 'failed' })).toBeUndefined();
        expect(await store.batches.get(made[1].id)).toEqual(updated);
        const mine = await store.batches.list({ accountId: a, limit: 3 });
        expect(mine.data.map((x) => x.id)).toEqual([made[3].id, made[2].id, made[1].id]);
        expect(mine.hasMore).toBe(true);
        expect(await store.batches.list({ accountId: a, limit: 3, after: made[1].id })).toEqual({ data: [made[0]], hasMore: false });
        expect((await store.batches.list({ accountId: a, status: ['failed'], limit: 10 })).data.map((x) => x.id)).toEqual([made[1].id]);
        expect((await store.batches.list({ limit: 1 })).data).toEqual([theirs]);
        await store.flush();
        store = await restart(store);
        expect(await store.batches.get(made[1].id)).toEqual(updated);
        expect(await store.batches.get(made[0].id)).toEqual(made[0]);
      });

      it("lists a face's batches (made there, not deleted there) a page at a time, newest or oldest first", async () => {
        const store = await fresh();
        const a = uid('acct');
        const at = (i: number, face?: BatchRecord['face'], deletedAt?: number) => aBatch(a, { created_at: 2_000 + i, ...(face ? { face } : {}), ...(deletedAt ? { deletedAt } : {}) });
        const made: BatchRecord[] = [];
        for (let i = 0; i < 6; i++) made.push(await store.batches.create(at(i, i === 4 ? undefined : 'messages', i === 2 ? 3_000 : undefined)));
        await store.batches.create(at(9, 'gemini'));
        await store.batches.create(aBatch(uid('acct'), { created_at: 2_010, face: 'messages' }));
        const ids = (page: { data: BatchRecord[] }) => page.data.map((x) => x.id);
        // The messages face shows 5, 3, 1, 0 (4 was made on /v1/batches, 2 deleted on its face).
        const first = await store.batches.list({ accountId: a, face: 'messages', limit: 2 });
        expect(ids(first)).toEqual([made[5].id, made[3].id]);
        expect(first.hasMore).toBe(true);
        expect(await store.batches.list({ accountId: a, face: 'messages', limit: 2, after: made[3].id })).toEqual({ data: [made[1], made[0]], hasMore: false });
        // Oldest first from an anchor: the page just newer than it (Anthropic's before_id).
        const older = await store.batches.list({ accountId: a, face: 'messages', limit: 1, after: made[1].id, order: 'asc' });
        expect(ids(older)).toEqual([made[3].id]);
        expect(older.hasMore).toBe(true);
        expect(ids(await store.batches.list({ accountId: a, face: 'gemini', limit: 10 }))).toHaveLength(1);
        expect(ids(await store.batches.list({ accountId: a, limit: 10 }))).toHaveLength(7);
      });

      it('leases: one owner at a time, renewed by its owner, taken over once lapsed, never on a finished batch', async () => {
        let store = await fresh();
        const a = uid('acct');
        const batch = await store.batches.create(aBatch(a, { status: 'in_progress' }));
        const done = await store.batches.create(aBatch(a, { status: 'completed' }));
        expect((await store.batches.claimable(1_000)).map((x) => x.id)).toEqual([batch.id]);
        expect((await store.batches.claim(batch.id, 'one', 1_000, 500))?.lease).toEqual({ owner: 'one', expiresAt: 1_500 });
        expect(await store.batches.claim(batch.id, 'two', 1_200, 500)).toBeUndefined();
        expect(await store.batches.claimable(1_200)).toEqual([]);
        expect((await store.batches.claim(batch.id, 'one', 1_400, 500))?.lease).toEqual({ owner: 'one', expiresAt: 1_900 });
        expect(await store.batches.claim(done.id, 'one', 1_400, 500)).toBeUndefined();
        expect(await store.batches.claim('batch_missing', 'one', 1_400, 500)).toBeUndefined();
        store = await restart(store);
        expect(await store.batches.claim(batch.id, 'two', 1_800, 500)).toBeUndefined();
        expect((await store.batches.claimable(1_900)).map((x) => x.id)).toEqual([batch.id]);
        expect((await store.batches.claim(batch.id, 'two', 1_900, 500))?.lease).toEqual({ owner: 'two', expiresAt: 2_400 });
        await store.batches.release(batch.id, 'one');
        expect((await store.batches.get(batch.id))?.lease?.owner).toBe('two');
        await store.batches.release(batch.id, 'two');
        expect((await store.batches.get(batch.id))?.lease).toBeNull();
        const racers = await Promise.all(['x', 'y', 'z'].map((owner) => store.batches.claim(batch.id, owner, 3_000, 500)));
        expect(racers.filter(Boolean)).toHaveLength(1);
      });

      it('keeps per-line progress durably: the first record of a line wins, read back by index after a restart, deleted', async () => {
        let store = await fresh();
        const batch = await store.batches.create(aBatch(uid('acct'), { status: 'in_progress' }));
        const line = (index: number, outcome: 'completed' | 'failed' = 'completed') => ({
          batchId: batch.id,
          index,
          customId: `req-${index}`,
          outcome,
          result: JSON.stringify({ id: `r${index}`, custom_id: `req-${index}`, note: 'é🙂' }),
        });
        const saved = await Promise.all([3, 0, 2, 1].map((i) => store.batches.saveLine(line(i, i === 2 ? 'failed' : 'completed'))));
        expect(saved).toEqual([true, true, true, true]);
        expect(await store.batches.saveLine({ ...line(1), result: 'second' })).toBe(false);
        expect(await store.batches.lines('batch_other')).toEqual([]);
        store = await restart(store);
        const back = await store.batches.lines(batch.id);
        expect(back.map((l) => l.index)).toEqual([0, 1, 2, 3]);
        expect(back[1]).toEqual(line(1));
        expect(back[2].outcome).toBe('failed');
        expect(await store.batches.saveLine({ ...line(3), result: 'again' })).toBe(false);
        await store.batches.deleteLines(batch.id);
        expect(await store.batches.lines(batch.id)).toEqual([]);
        store = await restart(store);
        expect(await store.batches.lines(batch.id)).toEqual([]);
      });
    });

    describe('stored responses', () => {
      const request = (text: string) => JSON.stringify({ model: 'mock/echo', input: [{ role: 'user', content: text }] });
      const response = (id: string, text: string) => JSON.stringify({ id, object: 'response', output: [{ type: 'message', content: [{ type: 'output_text', text }] }] });

      it('are read by their owner only, deleted by their owner only, and survive a restart', async () => {
        let store = await fresh();
        const a = uid('acct');
        const b = uid('acct');
        const id = `resp_${uid('x')}`;
        await store.responses.save({ id, accountId: a, createdAt: 1_000, request: request('hi'), response: response(id, 'hello') });
        expect(await store.responses.get(a, id)).toMatchObject({ id, accountId: a, createdAt: 1_000, request: { model: 'mock/echo' }, response: { id, object: 'response' } });
        expect(await store.responses.get(b, id)).toBeUndefined();
        expect(await store.responses.delete(b, id)).toBe(false);
        expect(await store.responses.get('', 'resp_missing')).toBeUndefined();
        expect(await store.responses.get(a, '../../db')).toBeUndefined();
        store = await restart(store);
        expect((await store.responses.get(a, id))?.response).toEqual(JSON.parse(response(id, 'hello')));
        expect(await store.responses.delete(a, id)).toBe(true);
        expect(await store.responses.get(a, id)).toBeUndefined();
      });

      it('keeps large bodies byte for byte (multi-byte characters across write slices)', async () => {
        const store = await fresh();
        const a = uid('acct');
        const id = `resp_${uid('big')}`;
        // Emoji (surrogate pairs) straddle every 1M-character boundary at some offset.
        const text = `${'x'.repeat((1 << 20) - 13)}${'🙂é'.repeat(300_000)}`;
        await store.responses.save({ id, accountId: a, createdAt: 1, request: request(text), response: response(id, text) });
        const back = await store.responses.get(a, id);
        expect((back?.request.input as Array<{ content: string }>)[0].content).toBe(text);
      });

      it('count each account\'s stored bytes through saves, overwrites, deletes, purges and a restart', async () => {
        let store = await fresh();
        const a = uid('acct');
        const b = uid('acct');
        const one = `resp_${uid('q')}`;
        const two = `resp_${uid('q')}`;
        expect(await store.responses.bytesOf(a)).toBe(0);
        await store.responses.save({ id: one, accountId: a, createdAt: Date.now(), request: request('x'), response: response(one, 'y') });
        const single = await store.responses.bytesOf(a);
        expect(single).toBeGreaterThanOrEqual(request('x').length + response(one, 'y').length);
        await store.responses.save({ id: two, accountId: a, createdAt: Date.now(), request: request('x'), response: response(two, 'y'.repeat(1000)) });
        const both = await store.responses.bytesOf(a);
        expect(both).toBeGreaterThanOrEqual(single * 2 + 999);
        expect(await store.responses.bytesOf(b)).toBe(0);
        store = await restart(store);
        expect(await store.responses.bytesOf(a)).toBe(both);
        expect(await store.responses.delete(a, two)).toBe(true);
        expect(await store.responses.bytesOf(a)).toBe(single);
        expect(await store.responses.purgeCreatedBefore(Date.now() + 60_000)).toBeGreaterThanOrEqual(1);
        expect(await store.responses.bytesOf(a)).toBe(0);
      });

      it('purges responses created before a time', async () => {
        const store = await fresh();
        const a = uid('acct');
        const id = `resp_${uid('old')}`;
        await store.responses.save({ id, accountId: a, createdAt: Date.now(), request: request('x'), response: response(id, 'y') });
        expect(await store.responses.purgeCreatedBefore(Date.now() - 60_000)).toBe(0);
        expect(await store.responses.purgeCreatedBefore(Date.now() + 60_000)).toBeGreaterThanOrEqual(1);
        expect(await store.responses.get(a, id)).toBeUndefined();
      });
    });

    describe('conversations', () => {
      const item = (id: string, text: string) => ({ id, item: JSON.stringify({ type: 'message', id, status: 'completed', role: 'user', content: [{ type: 'input_text', text }] }) });
      const texts = (items: Array<Record<string, unknown>> | undefined) => items?.map((entry) => (entry.content as Array<{ text: string }>)[0].text);

      it('are read, changed and deleted by their owner only, keep their items in order, and survive a restart', async () => {
        let store = await fresh();
        const a = uid('acct');
        const b = uid('acct');
        const id = `conv_${uid('c')}`;
        const created = await store.conversations.create({ id, accountId: a, createdAt: 1_000, metadata: { topic: 'demo' } }, [item('msg_1', 'one'), item('msg_2', 'two')]);
        expect(created).toMatchObject({ id, accountId: a, createdAt: 1_000, metadata: { topic: 'demo' }, itemCount: 2 });
        expect(await store.conversations.get(b, id)).toBeUndefined();
        expect(await store.conversations.items(b, id)).toBeUndefined();
        expect(await store.conversations.get(a, '../../db')).toBeUndefined();
        expect(await store.conversations.append(b, id, [item('msg_x', 'x')])).toBe('not_found');
        expect(await store.conversations.deleteItem(b, id, 'msg_1')).toBe('not_found');
        expect(await store.conversations.setMetadata(b, id, {})).toBeUndefined();
        expect(await store.conversations.delete(b, id)).toBe(false);
        const appended = await store.conversations.append(a, id, [item('msg_3', 'three')]);
        expect(appended).toMatchObject({ itemCount: 3 });
        expect(await store.conversations.setMetadata(a, id, { topic: 'changed' })).toMatchObject({ metadata: { topic: 'changed' } });
        expect(await store.conversations.deleteItem(a, id, 'msg_2')).toMatchObject({ itemCount: 2 });
        expect(await store.conversations.deleteItem(a, id, 'msg_2')).toBe('no_item');
        store = await restart(store);
        const back = await store.conversations.get(a, id);
        expect(back).toMatchObject({ id, accountId: a, createdAt: 1_000, metadata: { topic: 'changed' }, itemCount: 2 });
        expect(back!.itemBytes).toBe(Buffer.byteLength(item('msg_1', 'one').item) + Buffer.byteLength(item('msg_3', 'three').item));
        expect(texts(await store.conversations.items(a, id))).toEqual(['one', 'three']);
        expect((await store.conversations.items(a, id))![0]).toEqual(JSON.parse(item('msg_1', 'one').item));
        expect(await store.conversations.delete(a, id)).toBe(true);
        expect(await store.conversations.get(a, id)).toBeUndefined();
        expect(await store.conversations.items(a, id)).toBeUndefined();
        expect(await store.conversations.append(a, id, [item('msg_4', 'four')])).toBe('not_found');
      });

      it('an empty conversation lists no items; an append past its bounds adds nothing, concurrent appends included', async () => {
        const store = await fresh();
        const a = uid('acct');
        const id = `conv_${uid('c')}`;
        await store.conversations.create({ id, accountId: a, createdAt: 1, metadata: {} }, []);
        expect(await store.conversations.items(a, id)).toEqual([]);
        const bounds = { maxItems: 3, maxBytes: 1_000_000 };
        const outcomes = await Promise.all([1, 2, 3, 4].map((n) => store.conversations.append(a, id, [item(`msg_${n}`, `t${n}`)], bounds)));
        expect(outcomes.filter((outcome) => outcome === 'full')).toHaveLength(1);
        expect(await store.conversations.items(a, id)).toHaveLength(3);
        const one = Buffer.byteLength(item('msg_9', 'nine').item);
        expect(await store.conversations.append(a, id, [item('msg_9', 'nine')], { maxItems: 10, maxBytes: 3 * one })).toBe('full');
        expect(await store.conversations.append(a, id, [item('msg_9', 'nine'), item('msg_10', 'ten')], { maxItems: 4, maxBytes: 1_000_000 })).toBe('full');
        expect(await store.conversations.get(a, id)).toMatchObject({ itemCount: 3 });
      });

      it('an append with rename gives an id the conversation holds (or the append gave already) to a new item, checked with the append', async () => {
        const store = await fresh();
        const a = uid('acct');
        const id = `conv_${uid('r')}`;
        await store.conversations.create({ id, accountId: a, createdAt: 1, metadata: {} }, [item('msg_1', 'one'), item('msg_2', 'two')]);
        let minted = 0;
        const rename = (entry: { id: string; item: string }) => {
          const next = `msg_new${(minted += 1)}`;
          return { id: next, item: JSON.stringify({ ...JSON.parse(entry.item), id: next }) };
        };
        const appended = await store.conversations.append(a, id, [item('msg_2', 'again'), item('msg_3', 'three'), item('msg_3', 'three again')], undefined, rename);
        expect(appended).toMatchObject({ itemCount: 5 });
        if (typeof appended === 'string') throw new Error(appended);
        expect(appended.added.map((entry) => entry.id)).toEqual(['msg_new1', 'msg_3', 'msg_new2']);
        const listed = (await store.conversations.items(a, id))!;
        expect(listed.map((entry) => entry.id)).toEqual(['msg_1', 'msg_2', 'msg_new1', 'msg_3', 'msg_new2']);
        expect(texts(listed)).toEqual(['one', 'two', 'again', 'three', 'three again']);
        expect((await store.conversations.get(a, id))!.itemBytes).toBe(listed.reduce((sum, entry) => sum + Buffer.byteLength(JSON.stringify(entry)), 0));
        // An id deleted is free again; without rename the ids go in as given (store migrate copies so).
        expect(await store.conversations.deleteItem(a, id, 'msg_1')).toMatchObject({ itemCount: 4 });
        const again = await store.conversations.append(a, id, [item('msg_1', 'back')], undefined, rename);
        expect(typeof again !== 'string' && again.added.map((entry) => entry.id)).toEqual(['msg_1']);
        expect(await store.conversations.append(a, id, [item('msg_1', 'twice')])).toMatchObject({ itemCount: 6 });
      });

      it("count each account's bytes through creates, appends, item deletes, deletes and a restart", async () => {
        let store = await fresh();
        const a = uid('acct');
        const b = uid('acct');
        const one = `conv_${uid('q')}`;
        const two = `conv_${uid('q')}`;
        expect(await store.conversations.bytesOf(a)).toBe(0);
        await store.conversations.create({ id: one, accountId: a, createdAt: 1, metadata: {} }, [item('msg_1', 'x')]);
        const single = await store.conversations.bytesOf(a);
        expect(single).toBeGreaterThanOrEqual(Buffer.byteLength(item('msg_1', 'x').item));
        await store.conversations.create({ id: two, accountId: a, createdAt: 1, metadata: {} }, []);
        await store.conversations.append(a, two, [item('msg_2', 'y'.repeat(1000))]);
        const both = await store.conversations.bytesOf(a);
        expect(both).toBeGreaterThanOrEqual(single + 1000);
        expect(await store.conversations.bytesOf(b)).toBe(0);
        store = await restart(store);
        expect(await store.conversations.bytesOf(a)).toBe(both);
        expect(await store.conversations.delete(a, two)).toBe(true);
        expect(await store.conversations.bytesOf(a)).toBe(single);
        expect(await store.conversations.delete(a, one)).toBe(true);
        expect(await store.conversations.bytesOf(a)).toBe(0);
      });

      it('keeps large items byte for byte (multi-byte characters across write slices)', async () => {
        const store = await fresh();
        const a = uid('acct');
        const id = `conv_${uid('big')}`;
        const text = `${'x'.repeat((1 << 20) - 13)}${'🙂é'.repeat(300_000)}`;
        await store.conversations.create({ id, accountId: a, createdAt: 1, metadata: {} }, []);
        await store.conversations.append(a, id, [item('msg_big', text)]);
        expect(texts(await store.conversations.items(a, id))).toEqual([text]);
      });

      it('list a large conversation a page at a time, in either order, by `after`, deleted items left out, across a restart', async () => {
        let store = await fresh();
        const a = uid('acct');
        const id = `conv_${uid('pages')}`;
        await store.conversations.create({ id, accountId: a, createdAt: 1, metadata: {} }, [item('msg_0', 't0')]);
        // 250 items added one turn at a time (two items each) and one items.create of 20, some deleted.
        for (let n = 1; n < 230; n += 2) await store.conversations.append(a, id, [item(`msg_${n}`, `t${n}`), item(`msg_${n + 1}`, `t${n + 1}`)]);
        await store.conversations.append(a, id, Array.from({ length: 20 }, (_, k) => item(`msg_${231 + k}`, `t${231 + k}`)));
        const all = Array.from({ length: 251 }, (_, n) => `msg_${n}`);
        for (const gone of ['msg_0', 'msg_57', 'msg_58', 'msg_240', 'msg_250']) expect(await store.conversations.deleteItem(a, id, gone)).toMatchObject({ itemCount: expect.any(Number) });
        const kept = all.filter((itemId) => !['msg_0', 'msg_57', 'msg_58', 'msg_240', 'msg_250'].includes(itemId));
        const walk = async (order: 'asc' | 'desc', limit: number) => {
          const seen: string[] = [];
          let after: string | undefined;
          for (let pages = 0; pages < 1000; pages += 1) {
            const page = await store.conversations.page(a, id, after === undefined ? { limit, order } : { limit, order, after });
            if (page === undefined || page === 'no_item') throw new Error(`no page after ${after}`);
            seen.push(...page.data.map((entry) => entry.id as string));
            expect(page.data.length).toBeLessThanOrEqual(limit);
            if (!page.hasMore) return seen;
            after = seen.at(-1);
          }
          throw new Error('paging did not end');
        };
        const check = async () => {
          expect(await walk('asc', 100)).toEqual(kept);
          expect(await walk('desc', 20)).toEqual([...kept].reverse());
          expect(await walk('asc', 1)).toEqual(kept);
          const page = (await store.conversations.page(a, id, { limit: 3, order: 'desc', after: 'msg_60' })) as ConversationItemsPage;
          expect(page.data.map((entry) => entry.id)).toEqual(['msg_59', 'msg_56', 'msg_55']);
          expect(page.hasMore).toBe(true);
          expect(texts(page.data)).toEqual(['t59', 't56', 't55']);
          expect((await store.conversations.page(a, id, { limit: 5, order: 'asc', after: 'msg_248' }))!).toEqual({ data: [JSON.parse(item('msg_249', 't249').item)], hasMore: false });
          // A deleted item's id, or one never held, is no cursor: `no_item` (the route's 404 naming `after`), in either order.
          for (const order of ['asc', 'desc'] as const) {
            expect(await store.conversations.page(a, id, { limit: 5, order, after: 'msg_57' })).toBe('no_item');
            expect(await store.conversations.page(a, id, { limit: 5, order, after: 'msg_nope' })).toBe('no_item');
          }
          // The id of the last item in that order is a cursor: the empty page past it.
          expect(await store.conversations.page(a, id, { limit: 5, order: 'asc', after: 'msg_249' })).toEqual({ data: [], hasMore: false });
          expect(await store.conversations.page(a, id, { limit: 5, order: 'desc', after: 'msg_1' })).toEqual({ data: [], hasMore: false });
          expect(await store.conversations.item(a, id, 'msg_231')).toEqual(JSON.parse(item('msg_231', 't231').item));
          expect(await store.conversations.item(a, id, 'msg_57')).toBe('no_item');
          expect(texts(await store.conversations.items(a, id))).toEqual(kept.map((itemId) => `t${itemId.slice(4)}`));
          expect(await store.conversations.get(a, id)).toMatchObject({ itemCount: kept.length });
        };
        await check();
        store = await restart(store);
        await check();
        // Another account's id, or none: no conversation.
        const b = uid('acct');
        expect(await store.conversations.page(b, id, { limit: 5, order: 'asc' })).toBeUndefined();
        expect(await store.conversations.page(b, id, { limit: 5, order: 'asc', after: 'msg_nope' })).toBeUndefined();
        expect(await store.conversations.item(b, id, 'msg_1')).toBe('not_found');
        expect(await store.conversations.page(a, `conv_${uid('none')}`, { limit: 5, order: 'asc' })).toBeUndefined();
        await store.conversations.delete(a, id);
        expect(await store.conversations.page(a, id, { limit: 5, order: 'asc' })).toBeUndefined();
      });

      it('an empty conversation lists an empty page; an id held twice is a cursor at its last place in the page order', async () => {
        const store = await fresh();
        const a = uid('acct');
        const id = `conv_${uid('twice')}`;
        await store.conversations.create({ id, accountId: a, createdAt: 1, metadata: {} }, []);
        expect(await store.conversations.page(a, id, { limit: 20, order: 'desc' })).toEqual({ data: [], hasMore: false });
        expect(await store.conversations.item(a, id, 'msg_1')).toBe('no_item');
        // Without rename (as before ids were made unique) an id can be held twice.
        await store.conversations.append(a, id, [item('msg_1', 'first'), item('msg_2', 'two'), item('msg_1', 'again'), item('msg_3', 'three')]);
        const ids = async (order: 'asc' | 'desc') => ((await store.conversations.page(a, id, { limit: 10, order, after: 'msg_1' })) as ConversationItemsPage).data.map((entry) => entry.id);
        expect(await ids('asc')).toEqual(['msg_3']);
        expect(await ids('desc')).toEqual([]);
        expect(texts([(await store.conversations.item(a, id, 'msg_1')) as Record<string, unknown>])).toEqual(['first']);
      });

      it('take one turn at a time: a second claim is busy until the first is given back; another conversation or account is not held', async () => {
        const store = await fresh();
        const a = uid('acct');
        const b = uid('acct');
        const id = `conv_${uid('t')}`;
        const other = `conv_${uid('t')}`;
        await store.conversations.create({ id, accountId: a, createdAt: 1, metadata: {} }, []);
        await store.conversations.create({ id: other, accountId: a, createdAt: 1, metadata: {} }, []);
        const first = await store.conversations.claimTurn(a, id, 60_000);
        expect(first).not.toBe('busy');
        expect(await store.conversations.claimTurn(a, id, 60_000)).toBe('busy');
        const elsewhere = (await store.conversations.claimTurn(a, other, 60_000)) as ConversationTurn;
        expect(elsewhere).not.toBe('busy');
        // Another account's id is not its conversation: not held, and its hold frees nothing of a's.
        const stranger = (await store.conversations.claimTurn(b, id, 60_000)) as ConversationTurn;
        expect(stranger).not.toBe('busy');
        await stranger.release();
        expect(await store.conversations.claimTurn(a, id, 60_000)).toBe('busy');
        // The holder's own append goes in while it holds the conversation.
        expect(await store.conversations.append(a, id, [item('msg_1', 'turn')])).toMatchObject({ itemCount: 1 });
        if (first !== 'busy' && first.renew) expect(await first.renew()).toBe(true);
        await (first as ConversationTurn).release();
        const next = (await store.conversations.claimTurn(a, id, 60_000)) as ConversationTurn;
        expect(next).not.toBe('busy');
        // The first turn given back again frees nothing: the next one still holds it.
        await (first as ConversationTurn).release();
        expect(await store.conversations.claimTurn(a, id, 60_000)).toBe('busy');
        await next.release();
        await elsewhere.release();
        expect(await store.conversations.claimTurn(a, id, 60_000)).not.toBe('busy');
      });

      if (backend.second) {
        const second = backend.second;
        it('a turn held on one instance is busy on another until given back or lapsed; a lapsed turn cannot renew or free the next one', async () => {
          const one = await fresh();
          const two = await second(one);
          open.push(two);
          const a = uid('acct');
          const id = `conv_${uid('t')}`;
          await one.conversations.create({ id, accountId: a, createdAt: 1, metadata: {} }, []);
          const held = (await one.conversations.claimTurn(a, id, 60_000)) as ConversationTurn;
          expect(held).not.toBe('busy');
          expect(await two.conversations.claimTurn(a, id, 60_000)).toBe('busy');
          await held.release();
          // Both instances at once: exactly one gets it.
          const both = await Promise.all([one.conversations.claimTurn(a, id, 60_000), two.conversations.claimTurn(a, id, 60_000)]);
          const winners = both.filter((turn): turn is ConversationTurn => turn !== 'busy');
          expect(winners).toHaveLength(1);
          await winners[0].release();
          const taken = (await two.conversations.claimTurn(a, id, 60_000)) as ConversationTurn;
          expect(taken).not.toBe('busy');
          expect(await one.conversations.claimTurn(a, id, 60_000)).toBe('busy');
          await taken.release();
          // An instance that died holding it (never renewed, never given back): the lease lapses and the other takes it.
          const dying = (await one.conversations.claimTurn(a, id, 1_000)) as ConversationTurn;
          expect(dying).not.toBe('busy');
          expect(await two.conversations.claimTurn(a, id, 60_000)).toBe('busy');
          const after = await until('the lapsed turn to be taken', async () => {
            const turn = await two.conversations.claimTurn(a, id, 60_000);
            return turn === 'busy' ? undefined : turn;
          }, 10_000);
          expect(dying.renew).toBeTypeOf('function');
          expect(await dying.renew!()).toBe(false);
          await dying.release();
          expect(await one.conversations.claimTurn(a, id, 60_000)).toBe('busy');
          expect(await after.renew!()).toBe(true);
          await after.release();
          expect(await one.conversations.claimTurn(a, id, 60_000)).not.toBe('busy');
        });
      }
    });

    if (backend.sharedCredits) describeSharedCredits(fresh, restart);
  });
}

const PERIODS = { day: '2026-11-24', week: '2026-11-23', month: '2026-11' };
const TS = Date.UTC(2026, 10, 24, 12);

function anEntry(accountId: string, keyId: string, requestId: string, cost: number, overrides: Record<string, unknown> = {}) {
  return {
    ts: TS,
    request_id: requestId,
    account_id: accountId,
    key_id: keyId,
    model: 'mock/echo',
    provider: 'mock',
    endpoint: '/v1/chat/completions',
    input_tokens: 10,
    output_tokens: 5,
    reasoning_tokens: 0,
    cached_tokens: 0,
    cost_credits: cost,
    estimated: false,
    aborted: false,
    ...overrides,
  };
}

/** `store.credits`: holds, exactly-once settlement, ceilings and the quota, stale holds. */
function describeSharedCredits(fresh: () => Promise<Store>, restart: (store: Store) => Promise<Store>): void {
  describe('credits shared across instances', () => {
    const hold = (store: Store, accountId: string, keyId: string, requestId: string, credits: number, tokens = 0) =>
      store.credits!.hold({ requestId, accountId, keyId, credits, tokens, enforce: true, needsBalance: true, periods: PERIODS });

    it('concurrent holds never take more than the balance; settlement charges once per request id', async () => {
      const store = await fresh();
      const account = await store.accounts.create(anAccount({ credits: 100 }));
      const key = await store.keys.create(aKey(account.id));
      const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => hold(store, account.id, key.id, `req_c${i}`, 3)));
      expect(outcomes.filter((o) => o.outcome === 'ok')).toHaveLength(33);
      expect(outcomes.filter((o) => o.outcome === 'balance')).toHaveLength(17);
      expect((await store.credits!.state(account.id))?.reserved).toBe(99);
      const ok = outcomes.flatMap((o, i) => (o.outcome === 'ok' ? [`req_c${i}`] : []));
      // Each settles at 2 credits, the first one twice (and concurrently): one row, one charge.
      const settled = await Promise.all([ok[0], ...ok].map((id) => store.credits!.settle({ entry: anEntry(account.id, key.id, id, 2), enforce: true, periods: PERIODS })));
      expect(settled.filter((s) => s.inserted)).toHaveLength(33);
      expect(settled.filter((s) => !s.inserted)).toEqual([{ inserted: false, charged: 0 }]);
      const state = await store.credits!.state(account.id);
      expect(state).toMatchObject({ credits: 34, reserved: 0, reservedTokens: 0 });
      expect(state?.keyTotals.get(key.id)).toBe(66);
      const rows = await store.credits!.ledger({ accountId: account.id, limit: 100 });
      expect(rows).toHaveLength(33);
      expect(new Set(rows.map((r) => r.request_id)).size).toBe(33);
      expect(rows.reduce((n, r) => n + r.charged_credits, 0)).toBe(66);
      expect(rows[0]).toMatchObject({ model: 'mock/echo', input_tokens: 10, output_tokens: 5, cost_credits: 2, charged_credits: 2, estimated: false });
      // The same request id settled again after a restart (a second instance): still one row.
      const again = await restart(store);
      expect(await again.credits!.settle({ entry: anEntry(account.id, key.id, ok[1], 2), enforce: true, periods: PERIODS })).toEqual({ inserted: false, charged: 0 });
      expect((await again.credits!.state(account.id))?.credits).toBe(34);
      expect(await again.credits!.billedRequests('req_c1')).toEqual(new Set(ok.filter((id) => id.startsWith('req_c1'))));
      const totals = await again.credits!.usageTotals({ accountId: account.id });
      expect(totals).toEqual([{ date: PERIODS.day, accountId: account.id, keyId: key.id, model: 'mock/echo', provider: 'mock', requests: 33, inputTokens: 330, outputTokens: 165, reasoningTokens: 0, webSearchRequests: 0, credits: 66 }]);
    });

    it('a charge takes no more than the balance left after the other holds', async () => {
      const store = await fresh();
      const account = await store.accounts.create(anAccount({ credits: 10 }));
      const key = await store.keys.create(aKey(account.id));
      expect((await hold(store, account.id, key.id, 'req_a', 4)).outcome).toBe('ok');
      expect((await hold(store, account.id, key.id, 'req_b', 4)).outcome).toBe('ok');
      // req_a cost 9: 10 - 4 (req_b's hold) = 6 may be taken.
      expect(await store.credits!.settle({ entry: anEntry(account.id, key.id, 'req_a', 9), enforce: true, periods: PERIODS })).toMatchObject({ inserted: true, charged: 6 });
      expect((await store.credits!.ledger({ accountId: account.id, limit: 10 }))[0]).toMatchObject({ cost_credits: 9, charged_credits: 6 });
      expect(await store.credits!.release('req_b')).toBe(true);
      expect(await store.credits!.release('req_b')).toBe(false);
      expect(await store.credits!.state(account.id)).toMatchObject({ credits: 4, reserved: 0 });
      // Without enforcement the whole cost is charged (a settlement without a hold).
      expect(await store.credits!.settle({ entry: anEntry(account.id, key.id, 'req_c', 7), enforce: false, periods: PERIODS })).toMatchObject({ inserted: true, charged: 7 });
      expect((await store.credits!.state(account.id))?.credits).toBe(-3);
    });

    it("holds meet the key's spend limit, the account's monthly cap and the token quota, spent and held", async () => {
      const store = await fresh();
      const account = await store.accounts.create(anAccount({ credits: 1000, spendCap: 50, monthlyTokenQuota: 100 }));
      const key = await store.keys.create(aKey(account.id, { limit: 10, limitReset: 'daily' }));
      const other = await store.keys.create(aKey(account.id));
      expect((await hold(store, account.id, key.id, 'req_k1', 6)).outcome).toBe('ok');
      expect(await hold(store, account.id, key.id, 'req_k2', 6)).toMatchObject({ outcome: 'key_limit', limit: 10, used: 0, reserved: 6 });
      await store.credits!.settle({ entry: anEntry(account.id, key.id, 'req_k1', 5), enforce: true, periods: PERIODS });
      expect(await hold(store, account.id, key.id, 'req_k3', 6)).toMatchObject({ outcome: 'key_limit', used: 5, reserved: 0 });
      // The next day the key's daily limit starts over.
      const tomorrow = { day: '2026-11-25', week: PERIODS.week, month: PERIODS.month };
      expect((await store.credits!.hold({ requestId: 'req_k4', accountId: account.id, keyId: key.id, credits: 6, tokens: 0, enforce: true, needsBalance: true, periods: tomorrow })).outcome).toBe('ok');
      expect(await store.credits!.release('req_k4')).toBe(true);
      // The account cap: 5 spent this month, 45 left.
      expect(await hold(store, account.id, other.id, 'req_a1', 46)).toMatchObject({ outcome: 'account_cap', limit: 50, used: 5 });
      expect((await hold(store, account.id, other.id, 'req_a2', 45)).outcome).toBe('ok');
      expect(await store.credits!.release('req_a2')).toBe(true);
      // The quota: 15 tokens used, 85 left (held input tokens count).
      expect((await hold(store, account.id, other.id, 'req_q1', 0, 80)).outcome).toBe('ok');
      expect(await hold(store, account.id, other.id, 'req_q2', 0, 10)).toMatchObject({ outcome: 'quota', used: 15, limit: 100, reservedTokens: 80 });
      expect(await store.credits!.release('req_q1')).toBe(true);
      expect((await hold(store, account.id, other.id, 'req_q3', 0, 10)).outcome).toBe('ok');
      expect((await hold(store, account.id, other.id, 'req_x', 1)).outcome).toBe('ok');
      expect((await store.credits!.hold({ requestId: 'req_n', accountId: 'acct_missing', keyId: key.id, credits: 1, tokens: 0, enforce: true, needsBalance: true, periods: PERIODS })).outcome).toBe('no_account');
    });

    it('settles a group in one call: each once, in any order, a repeated id charged once', async () => {
      const store = await fresh();
      const a1 = await store.accounts.create(anAccount({ credits: 10 }));
      const a2 = await store.accounts.create(anAccount({ credits: 10 }));
      const k1 = await store.keys.create(aKey(a1.id));
      const k2 = await store.keys.create(aKey(a2.id));
      expect((await hold(store, a1.id, k1.id, 'req_g1', 3)).outcome).toBe('ok');
      expect((await hold(store, a2.id, k2.id, 'req_g2', 3)).outcome).toBe('ok');
      // A group of holds in one call: each checked in turn against the ones before it.
      const asks = (['req_m1', 'req_m2', 'req_m3'] as const).map((requestId, i) => ({ requestId, accountId: i === 1 ? a2.id : a1.id, keyId: i === 1 ? k2.id : k1.id, credits: 4, tokens: 0, enforce: true, needsBalance: true, periods: PERIODS }));
      expect((await store.credits!.holdMany(asks)).map((o) => o.outcome)).toEqual(['ok', 'ok', 'balance']);
      expect(await store.credits!.release('req_m1')).toBe(true);
      expect(await store.credits!.release('req_m2')).toBe(true);
      const settle = (accountId: string, keyId: string, id: string, cost: number) => ({ entry: anEntry(accountId, keyId, id, cost), enforce: true, periods: PERIODS });
      const outcomes = await store.credits!.settleMany([settle(a2.id, k2.id, 'req_g2', 2), settle(a1.id, k1.id, 'req_g1', 1), settle(a1.id, k1.id, 'req_g1', 1), settle(a1.id, k1.id, 'req_g3', 20)]);
      expect(outcomes).toEqual([
        { inserted: true, charged: 2, seq: expect.any(Number) },
        { inserted: true, charged: 1, seq: expect.any(Number) },
        { inserted: false, charged: 0 },
        // No hold, 9 left after req_g1: the charge stops at the balance.
        { inserted: true, charged: 9, seq: expect.any(Number) },
      ]);
      expect(await store.credits!.state(a1.id)).toMatchObject({ credits: 0, reserved: 0 });
      expect(await store.credits!.state(a2.id)).toMatchObject({ credits: 8, reserved: 0 });
      expect(await store.credits!.ledger({ limit: 10 })).toHaveLength(3);
    });

    it('the same request id held again takes over its old hold (a batch line re-run after a crash)', async () => {
      const store = await fresh();
      const account = await store.accounts.create(anAccount({ credits: 10 }));
      const key = await store.keys.create(aKey(account.id, { limit: 100 }));
      expect((await hold(store, account.id, key.id, 'batch_x:7', 6, 5)).outcome).toBe('ok');
      // Held again (another instance, the first one dead): 6 + 6 would not fit, the takeover does.
      expect((await hold(store, account.id, key.id, 'batch_x:7', 6, 5)).outcome).toBe('ok');
      expect(await store.credits!.state(account.id)).toMatchObject({ reserved: 6, reservedTokens: 5 });
      expect((await store.credits!.state(account.id))?.keyReserved.get(key.id)).toBe(6);
      expect(await store.credits!.settle({ entry: anEntry(account.id, key.id, 'batch_x:7', 5), enforce: true, periods: PERIODS })).toMatchObject({ inserted: true, charged: 5 });
      expect(await store.credits!.state(account.id)).toMatchObject({ credits: 5, reserved: 0, reservedTokens: 0 });
    });

    it('holds of an instance that stopped beating are given back by a sweep; live ones stay', async () => {
      const store = await fresh();
      const account = await store.accounts.create(anAccount({ credits: 10 }));
      const key = await store.keys.create(aKey(account.id, { limit: 100 }));
      await store.credits!.beat();
      expect((await hold(store, account.id, key.id, 'req_s1', 4, 7)).outcome).toBe('ok');
      expect(await store.credits!.releaseStale(60_000)).toBe(0);
      expect((await store.credits!.state(account.id))?.reserved).toBe(4);
      expect((await store.credits!.state(account.id))?.keyReserved.get(key.id)).toBe(4);
      await store.credits!.leave();
      expect(await store.credits!.releaseStale(0)).toBe(1);
      expect(await store.credits!.state(account.id)).toMatchObject({ reserved: 0, reservedTokens: 0 });
      expect((await store.credits!.state(account.id))?.keyReserved.size).toBe(0);
      // Settling after the sweep still charges once (the hold is simply gone).
      expect(await store.credits!.settle({ entry: anEntry(account.id, key.id, 'req_s1', 3), enforce: true, periods: PERIODS })).toMatchObject({ inserted: true, charged: 3 });
      expect(await store.credits!.state(account.id)).toMatchObject({ credits: 7, reserved: 0 });
    });
  });
}
