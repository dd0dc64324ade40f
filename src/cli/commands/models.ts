import type { Command } from 'commander';
import { withAdmin } from '../admin-client.ts';
import { resolveContext } from '../context.ts';
import { formatTable, print, printJson } from '../format-table.ts';

export async function listModelsCommand(cmd: Command, opts: { json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const models = await withAdmin(ctx, (admin) => admin.models.list.query());
  if (opts.json) return printJson(models);
  print(
    formatTable(
      ['ID', 'TYPE', 'FORMATS', 'CAPABILITIES'],
      models.map((m) => [String(m.id), String(m.type), (m.formats as string[]).join(','), (m.capabilities as string[]).join(',')]),
    ),
  );
}
