import type { CreatedKey, KeyView } from './types.ts';

/** The Keys tab's create, edit and revoke dialogs, step by step. */
export type KeysFlow =
  | { step: 'idle' }
  | { step: 'name' }
  | { step: 'account'; name: string }
  | { step: 'creating'; name: string; account: string }
  | { step: 'secret'; created: CreatedKey }
  | { step: 'confirm-revoke'; key: KeyView }
  | { step: 'revoking'; key: KeyView }
  /** `values` and `error`: the text typed and the service's refusal of it, when save number `round` came back refused. */
  | { step: 'edit'; key: KeyView; values?: Record<string, string>; error?: string; round?: number }
  | { step: 'saving'; key: KeyView; values: Record<string, string>; round: number };

export type KeysFlowAction =
  | { type: 'create' }
  | { type: 'name'; name: string }
  | { type: 'account'; account: string }
  | { type: 'created'; created: CreatedKey }
  | { type: 'revoke'; key: KeyView }
  | { type: 'confirm' }
  | { type: 'edit'; key: KeyView }
  | { type: 'save'; values: Record<string, string> }
  | { type: 'refused'; error: string }
  | { type: 'saved' }
  | { type: 'done' }
  | { type: 'cancel' };

export const idleKeysFlow: KeysFlow = { step: 'idle' };

/** Steps that own the keyboard (a prompt, a confirmation or the secret box). */
export function keysFlowCaptures(flow: KeysFlow): boolean {
  return flow.step !== 'idle';
}

export function reduceKeysFlow(flow: KeysFlow, action: KeysFlowAction): KeysFlow {
  switch (action.type) {
    case 'create':
      return flow.step === 'idle' ? { step: 'name' } : flow;
    case 'name':
      return flow.step === 'name' ? { step: 'account', name: action.name.trim() } : flow;
    case 'account':
      return flow.step === 'account' ? { step: 'creating', name: flow.name, account: action.account.trim() } : flow;
    case 'created':
      // The secret lives only in this state: closing the box drops it for good.
      return flow.step === 'creating' ? { step: 'secret', created: action.created } : flow;
    case 'revoke':
      return flow.step === 'idle' ? { step: 'confirm-revoke', key: action.key } : flow;
    case 'confirm':
      return flow.step === 'confirm-revoke' ? { step: 'revoking', key: flow.key } : flow;
    case 'edit':
      return flow.step === 'idle' ? { step: 'edit', key: action.key } : flow;
    case 'save':
      return flow.step === 'edit' ? { step: 'saving', key: flow.key, values: action.values, round: (flow.round ?? 0) + 1 } : flow;
    case 'refused':
      // The form comes back as it was sent, with the refusal: nothing typed is lost.
      return flow.step === 'saving' ? { step: 'edit', key: flow.key, values: flow.values, error: action.error, round: flow.round } : flow;
    case 'saved':
      return flow.step === 'saving' ? idleKeysFlow : flow;
    case 'done':
    case 'cancel':
      return idleKeysFlow;
  }
}
