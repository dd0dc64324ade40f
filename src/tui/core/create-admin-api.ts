import type { AdminClient } from '../../admin/index.ts';
import type { ModelRow, TuiAdminApi } from './types.ts';

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function modalityOf(architecture: unknown): string {
  const modality = architecture && typeof architecture === 'object' ? (architecture as { modality?: unknown }).modality : undefined;
  return typeof modality === 'string' ? modality : '';
}

/** Model objects are loosely typed (`Record<string, unknown>`): read the columns defensively. */
function toModelRow(model: Record<string, unknown>): ModelRow {
  return {
    id: String(model.id ?? ''),
    type: String(model.type ?? 'chat'),
    provider: String(model.provider ?? model.owned_by ?? ''),
    formats: stringList(model.formats),
    modality: modalityOf(model.architecture),
    capabilities: stringList(model.capabilities),
  };
}

/** Adapts the typed tRPC admin client to the TUI's small API; the only file that knows the router's shape. */
export function createAdminApi(client: AdminClient): TuiAdminApi {
  return {
    listAccounts: () => client.accounts.list.query(),
    createAccount: (input) => client.accounts.create.mutate(input),
    addCredits: (input) => client.billing.addCredits.mutate(input),
    setSuspended: (input) => client.billing.setAccount.mutate(input),
    setAccount: (input) => client.accounts.set.mutate(input),
    listKeys: () => client.keys.list.query(),
    createKey: (input) => client.keys.create.mutate(input),
    revokeKey: (input) => client.keys.revoke.mutate(input),
    setKey: (input) => client.keys.set.mutate(input),
    listModels: async () => (await client.models.list.query()).map(toModelRow),
    usage: async () => ({ accounts: (await client.billing.usage.query({})).accounts }),
    activity: () => client.activity.query(),
    listMedia: async (input) => {
      const page = await client.media.list.query({ page: input.page, pageSize: input.pageSize, type: input.type, status: input.status });
      return { data: page.data, total: page.total };
    },
    deleteMedia: (input) => client.media.remove.mutate(input),
    listBatches: (input) => client.batches.list.query({ limit: input.limit, after: input.after, status: input.status }),
    cancelBatch: (input) => client.batches.cancel.mutate(input),
  };
}
