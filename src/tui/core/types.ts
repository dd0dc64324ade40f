import type { AccountView, KeyView } from '../../admin/index.ts';
import type { AccountUsageRow } from '../../admin/index.ts';
import type { AdminBatchView } from '../../admin/index.ts';
import type { AdminMediaView } from '../../admin/index.ts';
import type { ActivitySnapshot } from '../../admin/index.ts';
import type { CreateAccountInput, CreateKeyInput, SetAccountInput, SetKeyInput } from '../../admin/index.ts';

export type { AccountView, AccountUsageRow, ActivitySnapshot, AdminBatchView, AdminMediaView, KeyView };

export type BatchStatus = AdminBatchView['status'];

/** One page of batches, newest first: `after` is the id of the last batch of the page before. */
export interface BatchQuery {
  limit: number;
  after?: string;
  status?: BatchStatus[];
}

export interface BatchPage {
  data: AdminBatchView[];
  has_more: boolean;
}
export type { CreateAccountInput, CreateKeyInput, SetAccountInput, SetKeyInput };

export type MediaTypeFilter = AdminMediaView['media_type'];
export type MediaStatusFilter = AdminMediaView['status'];

/** One page of the Media Library, newest first, optionally filtered. */
export interface MediaQuery {
  page: number;
  pageSize: number;
  type?: MediaTypeFilter;
  status?: MediaStatusFilter;
}

/** A model as the Models tab shows it. */
export interface ModelRow {
  id: string;
  type: string;
  provider: string;
  /** The wire formats its provider speaks (what a chat model is reached through); empty for a media model. */
  formats: string[];
  /** What goes in and comes out, as the catalog says (`text+image->image`); '' when the server gives none. */
  modality: string;
  capabilities: string[];
}

/** A key right after creation: the only time the secret is known. */
export interface CreatedKey extends KeyView {
  key: string;
}

export interface MediaPage {
  data: AdminMediaView[];
  total: number;
}

export interface UsageReport {
  accounts: AccountUsageRow[];
}

/**
 * What the TUI needs from the admin procedures. The real one wraps the tRPC client
 * (createAdminApi); tests pass a fake. Optional members are procedures a gateway may lack:
 * the screens that need them hide themselves.
 */
export interface TuiAdminApi {
  listAccounts(): Promise<AccountView[]>;
  /** Email, tier, starting credits, password, quota, spend cap (accounts.create). */
  createAccount?(input: CreateAccountInput): Promise<AccountView>;
  addCredits?(input: { email: string; add: number }): Promise<AccountView>;
  setSuspended?(input: { email: string; suspended: boolean }): Promise<AccountView>;
  /** Tier, quota, RPM, spend cap, password (accounts.set). */
  setAccount?(input: SetAccountInput): Promise<AccountView>;
  listKeys(): Promise<KeyView[]>;
  createKey(input: CreateKeyInput): Promise<CreatedKey>;
  revokeKey(input: { id: string }): Promise<KeyView>;
  /** Name, RPM, expiry, scopes, spend limit (keys.set). */
  setKey?(input: SetKeyInput): Promise<KeyView>;
  listModels(): Promise<ModelRow[]>;
  usage?(): Promise<UsageReport>;
  /** The running server's live figures (null when it keeps none). */
  activity?(): Promise<ActivitySnapshot | null>;
  listMedia?(input: MediaQuery): Promise<MediaPage>;
  deleteMedia?(input: { id: string }): Promise<{ id: string; deleted: boolean }>;
  /** Batches of every account (batches.list). */
  listBatches?(input: BatchQuery): Promise<BatchPage>;
  /** Cancels a batch (batches.cancel): `cancelling`, or `cancelled` at once when nothing runs it. */
  cancelBatch?(input: { id: string }): Promise<AdminBatchView>;
}

/** Where the TUI's data comes from, shown on the Overview. */
export interface ConnectionInfo {
  mode: 'server' | 'local';
  /** The server's base URL in `server` mode. */
  url?: string;
  dataDir: string;
  /** The file store's data dir was not there: the TUI made it (the wrong folder, or before the first serve). */
  newDataDir?: boolean;
}

export type StatusTone = 'info' | 'success' | 'error';

export interface StatusMessage {
  tone: StatusTone;
  text: string;
  /** Who posted it: a data hook clears its own error once it loads again, and no one else's. */
  source?: string;
}
