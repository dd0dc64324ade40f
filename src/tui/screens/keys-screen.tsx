import { Box, Text } from 'ink';
import { useReducer, useState } from 'react';
import { ConfirmBox, FormBox, formRows, KeyHints, SecretBox, Table, TextPrompt, useKeys, type Column } from '../components/index.ts';
import {
  describeKeyLimit,
  describeKeyLimitLong,
  describeKeyScope,
  formatAge,
  formatDate,
  formatTime,
  idleKeysFlow,
  KEY_FORM,
  keyFormInput,
  labelRefusal,
  keyFormValues,
  keysFlowCaptures,
  keyStatus,
  reduceKeysFlow,
  useAdminAction,
  useCapture,
  useResource,
  useSelection,
  useTui,
  type KeyView,
  type SetKeyInput,
} from '../core/index.ts';
import type { ScreenProps } from './types.ts';

/** The selected key in full: id, preview, owner, dates, limit and scopes. */
function KeyDetails({ keyView: k }: { keyView: KeyView }) {
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text bold>{k.id}</Text>
        <Text dimColor>{`  ${k.preview} · ${k.account}`}</Text>
      </Text>
      <Text dimColor wrap="truncate">{`created ${formatDate(k.created_at)} · ${k.last_used_at === null ? 'never used' : `last used ${formatTime(k.last_used_at)}`} · expires ${k.expires_at === null ? 'never' : formatDate(k.expires_at)}`}</Text>
      <Text dimColor wrap="truncate">{`${describeKeyLimitLong(k)} · models ${k.models?.join(', ') ?? 'all'} · endpoints ${k.endpoints?.join(', ') ?? 'all'}`}</Text>
    </Box>
  );
}

/**
 * API keys: `n` creates one (its secret shown once, the cursor on it), `e` edits the
 * selected one (name, RPM, expiry, scopes, spend limit), `x` revokes it after a y/n.
 */
export function KeysScreen({ width, height }: ScreenProps) {
  const { now, report, api } = useTui();
  const keys = useResource('keys', (a) => a.listKeys());
  const rows = keys.data ?? [];
  const selection = useSelection(rows, (k) => k.id);
  const [flow, dispatch] = useReducer(reduceKeysFlow, idleKeysFlow);
  // The refusal the open form shows: it may wrap, and the table gives its rows up to it.
  const [formError, setFormError] = useState<string | undefined>();
  const act = useAdminAction();
  useCapture(keysFlowCaptures(flow));

  useKeys((input, key) => {
    if (selection.onKey(input, key)) return;
    if (input === 'n') dispatch({ type: 'create' });
    const selected = selection.selected;
    if (input === 'e' && selected && api.setKey) {
      if (selected.revoked_at !== null) report({ tone: 'info', text: `Key ${selected.id} is revoked: nothing to edit.` });
      else dispatch({ type: 'edit', key: selected });
    }
    if (input === 'x' && selected) {
      if (selected.revoked_at !== null) report({ tone: 'info', text: `Key ${selected.id} is already revoked.` });
      else dispatch({ type: 'revoke', key: selected });
    }
  }, { active: flow.step === 'idle' });

  const create = async (name: string, account: string) => {
    dispatch({ type: 'account', account });
    const created = await act('Creating key', (a) => a.createKey({ name: name || undefined, account: account || undefined }), (k) => `Created key ${k.id} (${k.name}) for ${k.account}.`);
    if (created) selection.select(created.id);
    dispatch(created ? { type: 'created', created } : { type: 'cancel' });
  };
  const revoke = async (target: KeyView) => {
    dispatch({ type: 'confirm' });
    await act('Revoking key', (a) => a.revokeKey({ id: target.id }), (k) => `Revoked key ${k.id} (${k.name}).`);
    dispatch({ type: 'done' });
  };
  const save = (target: KeyView, values: Record<string, string>): string | undefined => {
    const input = keyFormInput(target, values);
    if (!input.ok) return input.error;
    if (input.value === null) {
      report({ tone: 'info', text: `Key ${target.id}: nothing changed.` });
      dispatch({ type: 'done' });
      return undefined;
    }
    const change: SetKeyInput = input.value;
    dispatch({ type: 'save', values });
    void act(
      'Saving key',
      (a) => a.setKey!(change),
      (k) => `Key ${k.id} (${k.name}): rpm ${k.rpm ?? 'from the account'}; ${describeKeyLimitLong(k)}; scope ${describeKeyScope(k)}.`,
      (refusal) => dispatch({ type: 'refused', error: labelRefusal(refusal, KEY_FORM) }),
    ).then(() => dispatch({ type: 'saved' }));
    return undefined;
  };

  // Dates and states are never cut; ids, names, accounts and scopes give way (the lines below the
  // table show the selected key whole). Under 100 columns the expiry and creation dates live there only.
  const wide = width >= 100;
  const columns: Column<KeyView>[] = [
    { header: 'ID', cell: (k) => k.id, min: wide ? 12 : 9 },
    { header: 'NAME', cell: (k) => k.name, max: 20, min: 6 },
    { header: 'ACCOUNT', cell: (k) => k.account, max: 24, min: 9 },
    { header: 'RPM', cell: (k) => (k.rpm === null ? '-' : String(k.rpm)), align: 'right' },
    { header: 'LIMIT', cell: (k) => describeKeyLimit(k), max: 22, min: 9 },
    { header: 'SCOPE', cell: (k) => describeKeyScope(k), max: 24, min: 5 },
    ...(wide
      ? [
          { header: 'EXPIRES', cell: (k: KeyView) => formatDate(k.expires_at), min: 10 },
          { header: 'CREATED', cell: (k: KeyView) => formatDate(k.created_at), min: 10 },
        ]
      : []),
    { header: 'LAST USED', cell: (k) => formatAge(k.last_used_at, now()), min: 9 },
    { header: 'STATUS', cell: (k) => keyStatus(k, now()), min: 7 },
  ];
  const dialogWidth = Math.min(width, 100);
  const editTitle = flow.step === 'edit' ? `Edit key ${flow.key.id} (${flow.key.name}) of ${flow.key.account}` : '';
  const dialogRows =
    flow.step === 'idle' ? 3 : flow.step === 'creating' || flow.step === 'revoking' || flow.step === 'saving' ? 0 : flow.step === 'secret' ? 8 : flow.step === 'edit' ? formRows(KEY_FORM, { width: dialogWidth, title: editTitle, error: formError }) : 6;
  const accounts = [...new Set(rows.map((k) => k.account))].slice(0, 3);
  const hints: Array<[string, string]> = [['↑/↓', 'move'], ['n', 'new key']];
  if (api.setKey) hints.push(['e', 'edit RPM, expiry, scope, limit']);
  hints.push(['x', 'revoke']);

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
      {selection.selected && flow.step === 'idle' ? <KeyDetails keyView={selection.selected} /> : null}
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
      {flow.step === 'edit' ? (
        <FormBox
          // A refused save's form is drawn anew with its values and the refusal (the save may not have drawn a frame between).
          key={flow.round ?? 0}
          width={dialogWidth}
          title={editTitle}
          fields={KEY_FORM}
          initial={flow.values ?? keyFormValues(flow.key)}
          error={flow.error}
          onError={setFormError}
          onSubmit={(values) => save(flow.key, values)}
          onCancel={() => dispatch({ type: 'cancel' })}
        />
      ) : null}
      {flow.step === 'confirm-revoke' ? (
        <ConfirmBox width={dialogWidth}
          question={`Revoke key ${flow.key.id} (${flow.key.name})?`}
          detail={`${flow.key.preview} of ${flow.key.account}: clients using it get 401 at once. This cannot be undone.`}
          onYes={() => void revoke(flow.key)}
          onNo={() => dispatch({ type: 'cancel' })}
        />
      ) : null}
      {flow.step === 'idle' ? <KeyHints hints={hints} /> : null}
    </Box>
  );
}
