import type { Admission, AuthContext, RequestGuards } from '../accounts/index.ts';
import type { MediaConfig, MediaLibraryWriter } from '../media/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import type { AccountRecord, ApiKeyRecord, MediaRecord, Store } from '../store/index.ts';
import type { Clock } from '../util/index.ts';
import type { Logger } from '../util/index.ts';
import type { Turns } from '../util/index.ts';
import type { ContentCache } from './content-cache.ts';
import { readJob, type JobState } from './job-state.ts';

/** What the job code needs from the composition root. */
export interface JobDeps {
  store: Store;
  registry: ProviderRegistry;
  guards: RequestGuards;
  clock: Clock;
  log: Logger;
  dataDir: string;
  config: MediaConfig['jobs'];
  /** The master webhook secret, read at start (readMasterSecret); read here when not given. */
  webhookMaster?: string;
  /** Who holds job leases: stable across restarts of one data dir (its `instance-id`), as for batches. */
  instanceId: string;
  /** How often cached content of records that are gone is removed (ms; `media.purgeIntervalSeconds`). */
  sweepEveryMs?: number;
  /** The gateway's Media Library (MediaRuntime.library): a job's record is created within its limits, in its account's turn. */
  library: MediaLibraryWriter;
}

/** Where job records change: the store, and the turns that keep the changes of one record in order in this process. */
export interface JobRecords {
  store: Store;
  /** One change per record at a time (the runner's, shared with the admin procedures of its process). */
  recordTurns: Turns;
}

/** The job runtime's shared parts: deps, the content cache, the holds and turns of this process. */
export interface JobContext extends JobDeps, JobRecords {
  /** One submit per account at a time, so a burst cannot pass the in-flight limit together. */
  submitTurns: Turns;
  cache: ContentCache;
  /** Admissions held since submit (or since this instance resumed the job), by record id. */
  holds: Map<string, Admission>;
  /** Jobs this process is submitting right now: the runner leaves them alone until the provider answered. */
  submitting: Set<string>;
  /** The per-account webhook secret. */
  webhookSecret(accountId: string): string;
}

/**
 * Who a job is billed to: the API key that submitted it, or (a Media Library submit, made with a
 * dashboard session) the account itself under the key id `dashboard`, which no spend limit names.
 */
export async function jobAuth(store: Store, accountId: string, keyId: string | null): Promise<AuthContext | undefined> {
  const account: AccountRecord | undefined = store.cache.account(accountId) ?? (await store.accounts.get(accountId));
  if (!account) return undefined;
  if (keyId === null) return { account, key: dashboardKey(account) };
  const key = await store.keys.get(keyId);
  return key ? { account, key } : undefined;
}

/** The stand-in key of dashboard-session jobs. */
export function dashboardKey(account: AccountRecord): ApiKeyRecord {
  return { id: 'dashboard', accountId: account.id, name: 'dashboard session', hash: '', preview: 'dashboard', rpm: null, expiresAt: null, revokedAt: null, createdAt: account.createdAt ?? 0 };
}

/** What a change of a job makes: its new state, record fields to set, and whether it still needs work. */
export interface JobChange {
  job: JobState;
  patch?: Partial<MediaRecord>;
  open?: boolean;
}

/**
 * Changes a job from its freshest stored state in one atomic step of the store (the row held
 * while `change` runs), so the runner, a route (cancel) and other instances never write over
 * each other; one change per record at a time in this process. `change` returns undefined to
 * leave the record as it is. Resolves with the record as stored, or undefined when it is gone.
 */
export function updateJob({ store, recordTurns }: JobRecords, id: string, change: (job: JobState, record: MediaRecord) => JobChange | undefined): Promise<MediaRecord | undefined> {
  return recordTurns(id, async () => {
    let jobless = false;
    const stored = await store.media.updateWith(id, (current) => {
      const job = readJob(current);
      if (!current.job || !job) {
        jobless = true;
        return undefined;
      }
      const next = change(job, current);
      if (!next) return undefined;
      const open = next.open ?? current.job.open;
      return { ...next.patch, job: { open, lease: open ? current.job.lease : null, state: next.job } };
    });
    return jobless ? undefined : stored;
  });
}
