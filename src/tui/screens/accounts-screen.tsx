import { Box, Text } from 'ink';
import { useReducer } from 'react';
import { ConfirmBox, KeyHints, Table, TextPrompt, useKeys, type Column } from '../components/index.ts';
import {
  accountsFlowCaptures,
  formatCredits,
  formatQuota,
  idleAccountsFlow,
  parseCredits,
  reduceAccountsFlow,
  useAdminAction,
  useCapture,
  useResource,
  useSelection,
  useTui,
  type AccountView,
} from '../core/index.ts';
import type { ScreenProps } from './types.ts';

const COLUMNS: Column<AccountView>[] = [
  { header: 'EMAIL', cell: (a) => a.email, max: 40, min: 10 },
  { header: 'TIER', cell: (a) => a.tier },
  { header: 'CREDITS', cell: (a) => formatCredits(a.credits), align: 'right' },
  { header: 'QUOTA (TOKENS/MONTH)', cell: (a) => formatQuota(a.monthly_token_quota), align: 'right', min: 9 },
  { header: 'RPM', cell: (a) => (a.rpm === null ? 'tier' : String(a.rpm)), align: 'right' },
  { header: 'SUSPENDED', cell: (a) => (a.suspended ? 'yes' : 'no') },
];

/** Accounts: `a` adds one, `c` adds (or takes) credits, `s` suspends or lifts a suspension, each if the gateway has the procedure. */
export function AccountsScreen({ width, height }: ScreenProps) {
  const accounts = useResource('accounts', (api) => api.listAccounts());
  const rows = accounts.data ?? [];
  const selection = useSelection(rows, (a) => a.id);
  const [flow, dispatch] = useReducer(reduceAccountsFlow, idleAccountsFlow);
  const act = useAdminAction();
  const { api } = useTui();
  useCapture(accountsFlowCaptures(flow));

  useKeys((input, key) => {
    if (selection.onKey(input, key)) return;
    const selected = selection.selected;
    if (input === 'a' && api.createAccount) dispatch({ type: 'new' });
    if (input === 'c' && selected && api.addCredits) dispatch({ type: 'credits', account: selected });
    if (input === 's' && selected && api.setSuspended) dispatch({ type: 'suspend', account: selected });
  }, { active: flow.step === 'idle' });

  const createAccount = async (email: string) => {
    dispatch({ type: 'work', label: 'creating' });
    await act('Creating account', (a) => a.createAccount!({ email: email.trim() }), (a) => `Created account ${a.email} (${a.tier}).`);
    dispatch({ type: 'done' });
  };
  const addCredits = async (account: AccountView, text: string) => {
    const amount = parseCredits(text);
    if (!amount.ok) return dispatch({ type: 'invalid', error: amount.error });
    dispatch({ type: 'work', label: 'credits' });
    await act(
      'Adding credits',
      (a) => a.addCredits!({ email: account.email, add: amount.value }),
      (a) => `${a.email}: ${amount.value >= 0 ? 'added' : 'took'} ${formatCredits(Math.abs(amount.value))} credits; balance ${formatCredits(a.credits)}.`,
    );
    dispatch({ type: 'done' });
  };
  const toggleSuspended = async (account: AccountView) => {
    dispatch({ type: 'work', label: 'suspend' });
    await act(
      account.suspended ? 'Lifting suspension' : 'Suspending account',
      (a) => a.setSuspended!({ email: account.email, suspended: !account.suspended }),
      (a) => `${a.email} is ${a.suspended ? 'suspended' : 'active again'}.`,
    );
    dispatch({ type: 'done' });
  };

  const hints: Array<[string, string]> = [['↑/↓', 'move']];
  if (api.createAccount) hints.push(['a', 'new account']);
  if (api.addCredits) hints.push(['c', 'add credits']);
  if (api.setSuspended) hints.push(['s', 'suspend / unsuspend']);
  const dialogWidth = Math.min(width, 100);
  const dialogRows = flow.step === 'idle' || flow.step === 'working' ? 0 : 6;

  return (
    <Box flexDirection="column">
      <Text bold>{accounts.loading ? 'Accounts …' : `Accounts (${rows.length})`}</Text>
      <Table
        columns={COLUMNS}
        rows={rows}
        selected={selection.index}
        width={width}
        height={height - 4 - dialogRows}
        empty={accounts.loading ? 'loading…' : 'No accounts yet.'}
        dim={(a) => a.suspended}
      />
      {flow.step === 'email' ? (
        <TextPrompt width={dialogWidth} label="New account: email" hint="tier free, 0 credits" onSubmit={(email) => void createAccount(email)} onCancel={() => dispatch({ type: 'cancel' })} />
      ) : null}
      {flow.step === 'credits' ? (
        <TextPrompt width={dialogWidth}
          label={`Add credits to ${flow.account.email} (balance ${formatCredits(flow.account.credits)})`}
          hint="1 credit = 0.001 USD; negative takes credits away"
          error={flow.error}
          onSubmit={(text) => void addCredits(flow.account, text)}
          onCancel={() => dispatch({ type: 'cancel' })}
        />
      ) : null}
      {flow.step === 'confirm-suspend' ? (
        <ConfirmBox width={dialogWidth}
          question={flow.account.suspended ? `Lift the suspension of ${flow.account.email}?` : `Suspend ${flow.account.email}?`}
          detail={flow.account.suspended ? 'Its keys work again at once.' : 'Every key of the account is refused (403) until the suspension is lifted.'}
          onYes={() => void toggleSuspended(flow.account)}
          onNo={() => dispatch({ type: 'cancel' })}
        />
      ) : null}
      {flow.step === 'idle' ? <KeyHints hints={hints} /> : null}
    </Box>
  );
}
