import { Box, Text } from 'ink';
import { useReducer, useState } from 'react';
import { ConfirmBox, FormBox, formRows, KeyHints, Table, TextPrompt, useKeys, type Column } from '../components/index.ts';
import {
  ACCOUNT_FORM,
  accountFormInput,
  accountFormValues,
  accountsFlowCaptures,
  describeSpendCap,
  formatCredits,
  formatQuota,
  idleAccountsFlow,
  labelRefusal,
  NEW_ACCOUNT_FORM,
  newAccountFormValues,
  newAccountInput,
  parseCredits,
  reduceAccountsFlow,
  useAdminAction,
  useCapture,
  useResource,
  useSelection,
  useTui,
  type AccountView,
  type CreateAccountInput,
  type SetAccountInput,
} from '../core/index.ts';
import type { ScreenProps } from './types.ts';

/** The columns for a terminal `width` wide: whether it can log in only when there is room. */
function columnsFor(width: number): Column<AccountView>[] {
  return [
    { header: 'EMAIL', cell: (a) => a.email, max: 40, min: 10 },
    { header: 'TIER', cell: (a) => a.tier, min: 10 },
    { header: 'CREDITS', cell: (a) => formatCredits(a.credits), align: 'right' },
    { header: 'TOKEN QUOTA', cell: (a) => formatQuota(a.monthly_token_quota), align: 'right', min: 9 },
    { header: 'RPM', cell: (a) => (a.rpm === null ? 'tier' : String(a.rpm)), align: 'right' },
    { header: 'SPEND CAP', cell: (a) => describeSpendCap(a), align: 'right', min: 9 },
    ...(width >= 90 ? [{ header: 'LOGIN', cell: (a: AccountView) => (a.has_password ? 'yes' : 'no') }] : []),
    { header: 'SUSPENDED', cell: (a) => (a.suspended ? 'yes' : 'no') },
  ];
}

/**
 * Accounts: `a` adds one (tier, credits, password, quota, spend cap), `e` edits tier, quota,
 * RPM, spend cap or password, `c` adds (or takes) credits, `s` suspends or lifts a
 * suspension, each if the gateway has the procedure.
 */
export function AccountsScreen({ width, height }: ScreenProps) {
  const accounts = useResource('accounts', (api) => api.listAccounts());
  const rows = accounts.data ?? [];
  const selection = useSelection(rows, (a) => a.id);
  const [flow, dispatch] = useReducer(reduceAccountsFlow, idleAccountsFlow);
  // The refusal the open form shows: it may wrap, and the table gives its rows up to it.
  const [formError, setFormError] = useState<string | undefined>();
  const act = useAdminAction();
  const { api, report } = useTui();
  useCapture(accountsFlowCaptures(flow));

  useKeys((input, key) => {
    if (selection.onKey(input, key)) return;
    const selected = selection.selected;
    if (input === 'a' && api.createAccount) dispatch({ type: 'new' });
    if (input === 'e' && selected && api.setAccount) dispatch({ type: 'edit', account: selected });
    if (input === 'c' && selected && api.addCredits) dispatch({ type: 'credits', account: selected });
    if (input === 's' && selected && api.setSuspended) dispatch({ type: 'suspend', account: selected });
  }, { active: flow.step === 'idle' });

  const createAccount = (values: Record<string, string>): string | undefined => {
    const input = newAccountInput(values);
    if (!input.ok) return input.error;
    const account: CreateAccountInput = input.value;
    dispatch({ type: 'create', values });
    void act(
      'Creating account',
      (a) => a.createAccount!(account),
      (a) => `Created account ${a.email} (${a.tier}, ${formatCredits(a.credits)} credits${a.has_password ? ', can log in' : ''}).`,
      (refusal) => dispatch({ type: 'refused', error: labelRefusal(refusal, NEW_ACCOUNT_FORM) }),
    ).then((created) => {
      if (created) selection.select(created.id);
      dispatch({ type: 'created' });
    });
    return undefined;
  };
  const saveAccount = (account: AccountView, values: Record<string, string>): string | undefined => {
    const input = accountFormInput(account, values);
    if (!input.ok) return input.error;
    if (input.value === null) {
      report({ tone: 'info', text: `${account.email}: nothing changed.` });
      dispatch({ type: 'done' });
      return undefined;
    }
    const change: SetAccountInput = input.value;
    dispatch({ type: 'work', label: 'saving' });
    void act(
      'Saving account',
      (a) => a.setAccount!(change),
      (a) => `${a.email}: tier ${a.tier}, quota ${formatQuota(a.monthly_token_quota)}, spend cap ${describeSpendCap(a)}${change.password ? ', new password set' : ''}.`,
    ).then(() => dispatch({ type: 'done' }));
    return undefined;
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
  if (api.setAccount) hints.push(['e', 'edit']);
  if (api.addCredits) hints.push(['c', 'add credits']);
  if (api.setSuspended) hints.push(['s', 'suspend / unsuspend']);
  const dialogWidth = Math.min(width, 100);
  const editTitle = flow.step === 'edit' ? `Edit account ${flow.account.email}` : '';
  const dialogRows =
    flow.step === 'idle' || flow.step === 'working' || flow.step === 'creating'
      ? 0
      : flow.step === 'new'
        ? formRows(NEW_ACCOUNT_FORM, { width: dialogWidth, title: 'New account', error: formError })
        : flow.step === 'edit'
          ? formRows(ACCOUNT_FORM, { width: dialogWidth, title: editTitle, error: formError })
          : 6;

  return (
    <Box flexDirection="column">
      <Text bold>{accounts.loading ? 'Accounts …' : `Accounts (${rows.length})`}</Text>
      <Table
        columns={columnsFor(width)}
        rows={rows}
        selected={selection.index}
        width={width}
        height={height - 4 - dialogRows}
        empty={accounts.loading ? 'loading…' : 'No accounts yet.'}
        dim={(a) => a.suspended}
      />
      {flow.step === 'new' ? (
        <FormBox
          // A refused creation's form is drawn anew with its values and the refusal.
          key={flow.round ?? 0}
          width={dialogWidth}
          title="New account"
          fields={NEW_ACCOUNT_FORM}
          initial={flow.values ?? newAccountFormValues()}
          error={flow.error}
          onError={setFormError}
          onSubmit={createAccount}
          onCancel={() => dispatch({ type: 'cancel' })}
        />
      ) : null}
      {flow.step === 'edit' ? (
        <FormBox
          width={dialogWidth}
          title={editTitle}
          fields={ACCOUNT_FORM}
          initial={accountFormValues(flow.account)}
          onError={setFormError}
          onSubmit={(values) => saveAccount(flow.account, values)}
          onCancel={() => dispatch({ type: 'cancel' })}
        />
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
