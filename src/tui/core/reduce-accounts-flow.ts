import type { AccountView } from './types.ts';

/** The Accounts tab's dialogs: new account, edit settings, add credits, suspend or lift a suspension. */
export type AccountsFlow =
  | { step: 'idle' }
  /** `values`, `error`: the form as it was sent and the service's refusal of it, when creation number `round` was refused. */
  | { step: 'new'; values?: Record<string, string>; error?: string; round?: number }
  | { step: 'creating'; values: Record<string, string>; round: number }
  | { step: 'edit'; account: AccountView }
  | { step: 'credits'; account: AccountView; error?: string }
  | { step: 'confirm-suspend'; account: AccountView }
  | { step: 'working'; label: string };

export type AccountsFlowAction =
  | { type: 'new' }
  | { type: 'edit'; account: AccountView }
  | { type: 'credits'; account: AccountView }
  | { type: 'invalid'; error: string }
  | { type: 'suspend'; account: AccountView }
  | { type: 'work'; label: string }
  | { type: 'create'; values: Record<string, string> }
  | { type: 'refused'; error: string }
  | { type: 'created' }
  | { type: 'done' }
  | { type: 'cancel' };

export const idleAccountsFlow: AccountsFlow = { step: 'idle' };

export function accountsFlowCaptures(flow: AccountsFlow): boolean {
  return flow.step !== 'idle';
}

export function reduceAccountsFlow(flow: AccountsFlow, action: AccountsFlowAction): AccountsFlow {
  switch (action.type) {
    case 'new':
      return flow.step === 'idle' ? { step: 'new' } : flow;
    case 'edit':
      return flow.step === 'idle' ? { step: 'edit', account: action.account } : flow;
    case 'credits':
      return flow.step === 'idle' ? { step: 'credits', account: action.account } : flow;
    case 'invalid':
      return flow.step === 'credits' ? { ...flow, error: action.error } : flow;
    case 'suspend':
      return flow.step === 'idle' ? { step: 'confirm-suspend', account: action.account } : flow;
    case 'work':
      return { step: 'working', label: action.label };
    case 'create':
      return flow.step === 'new' ? { step: 'creating', values: action.values, round: (flow.round ?? 0) + 1 } : flow;
    case 'refused':
      // The form comes back as it was sent, with the refusal: nothing typed is lost.
      return flow.step === 'creating' ? { step: 'new', values: flow.values, error: action.error, round: flow.round } : flow;
    case 'created':
      return flow.step === 'creating' ? idleAccountsFlow : flow;
    case 'done':
    case 'cancel':
      return idleAccountsFlow;
  }
}

/** Parses a credits amount typed by the operator: a finite number, negative takes credits away. */
export function parseCredits(text: string): { ok: true; value: number } | { ok: false; error: string } {
  const trimmed = text.trim().replace(/_/g, '');
  const value = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(value)) return { ok: false, error: `not a number: '${text.trim()}'` };
  if (value === 0) return { ok: false, error: 'the amount must not be 0' };
  return { ok: true, value };
}
