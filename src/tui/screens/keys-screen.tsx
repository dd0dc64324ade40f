import { Box, Text } from 'ink';
import { useReducer } from 'react';
import { ConfirmBox, KeyHints, SecretBox, Table, TextPrompt, useKeys, type Column } from '../components/index.ts';
import { idleKeysFlow, keysFlowCaptures, keyStatus, reduceKeysFlow, useAdminAction, useCapture, useResource, useSelection, useTui, type KeyView } from '../core/index.ts';
import type { ScreenProps } from './types.ts';

/** API keys: `n` creates one (its secret shown once), `x` revokes the selected one after a y/n. */
export function KeysScreen({ width, height }: ScreenProps) {
  const { now, report } = useTui();
  const keys = useResource('keys', (api) => api.listKeys());
  const rows = keys.data ?? [];
  const selection = useSelection(rows, (k) => k.id);
  const [flow, dispatch] = useReducer(reduceKeysFlow, idleKeysFlow);
  const act = useAdminAction();
  useCapture(keysFlowCaptures(flow));

  useKeys((input, key) => {
    if (selection.onKey(input, key)) return;
    if (input === 'n') dispatch({ type: 'create' });
    if (input === 'x' && selection.selected) {
      if (selection.selected.revoked_at !== null) report({ tone: 'info', text: `Key ${selection.selected.id} is already revoked.` });
      else dispatch({ type: 'revoke', key: selection.selected });
    }
  }, { active: flow.step === 'idle' });

  const create = async (name: string, account: string) => {
    dispatch({ type: 'account', account });
    const created = await act('Creating key', (api) => api.createKey({ name: name || undefined, account: account || undefined }), (k) => `Created key ${k.id} (${k.name}) for ${k.account}.`);
    dispatch(created ? { type: 'created', created } : { type: 'cancel' });
  };
  const revoke = async (target: KeyView) => {
    dispatch({ type: 'confirm' });
    await act('Revoking key', (api) => api.revokeKey({ id: target.id }), (k) => `Revoked key ${k.id} (${k.name}).`);
    dispatch({ type: 'done' });
  };

  const columns: Column<KeyView>[] = [
    { header: 'ID', cell: (k) => k.id },
    { header: 'NAME', cell: (k) => k.name, max: 24, min: 6 },
    { header: 'ACCOUNT', cell: (k) => k.account, max: 32, min: 8 },
    { header: 'KEY', cell: (k) => k.preview },
    { header: 'RPM', cell: (k) => (k.rpm === null ? '-' : String(k.rpm)), align: 'right' },
    { header: 'STATUS', cell: (k) => keyStatus(k, now()) },
  ];
  const dialogWidth = Math.min(width, 100);
  const dialogRows = flow.step === 'idle' || flow.step === 'creating' || flow.step === 'revoking' ? 0 : flow.step === 'secret' ? 8 : 6;
  const accounts = [...new Set(rows.map((k) => k.account))].slice(0, 3);

  return (
    <Box flexDirection="column">
      <Text bold>{keys.loading ? 'API keys …' : `API keys (${rows.length})`}</Text>
      <Table
        columns={columns}
        rows={rows}
        selected={selection.index}
        width={width}
        height={height - 4 - dialogRows}
        empty={keys.loading ? 'loading…' : 'No API keys yet: press n to create one.'}
        dim={(k) => keyStatus(k, now()) !== 'active'}
      />
      {flow.step === 'name' ? (
        <TextPrompt width={dialogWidth} label="New key: name" hint="empty = default" onSubmit={(name) => dispatch({ type: 'name', name })} onCancel={() => dispatch({ type: 'cancel' })} />
      ) : null}
      {flow.step === 'account' ? (
        <TextPrompt width={dialogWidth}
          label={`New key "${flow.name || 'default'}": owner account (email)`}
          hint={`empty = the default account${accounts.length ? `; e.g. ${accounts.join(', ')}` : ''}`}
          onSubmit={(account) => void create(flow.name, account)}
          onCancel={() => dispatch({ type: 'cancel' })}
        />
      ) : null}
      {flow.step === 'secret' ? (
        <SecretBox width={dialogWidth} title={`New API key ${flow.created.id} (${flow.created.name}) for ${flow.created.account}`} secret={flow.created.key} onClose={() => dispatch({ type: 'done' })} />
      ) : null}
      {flow.step === 'confirm-revoke' ? (
        <ConfirmBox width={dialogWidth}
          question={`Revoke key ${flow.key.id} (${flow.key.name})?`}
          detail={`${flow.key.preview} of ${flow.key.account}: clients using it get 401 at once. This cannot be undone.`}
          onYes={() => void revoke(flow.key)}
          onNo={() => dispatch({ type: 'cancel' })}
        />
      ) : null}
      {flow.step === 'idle' ? <KeyHints hints={[['↑/↓', 'move'], ['n', 'new key'], ['x', 'revoke']]} /> : null}
    </Box>
  );
}
