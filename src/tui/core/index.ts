export { createAdminApi } from './create-admin-api.ts';
export { describeError, errorCode, httpStatusOf } from './describe-error.ts';
export { editText, type EditKeys, type EditResult } from './edit-text.ts';
export { fitColumns, layoutRow, textWidth, truncate, wrappedLines, type ColumnSpec } from './fit-columns.ts';
export { describeKeyLimit, describeKeyLimitLong, describeKeyScope, describeSpendCap, formatAge, formatCount, formatCredits, formatDate, formatProgress, formatQuota, formatTime, keyStatus } from './format-values.ts';
export { applyFormKey, initialForm, labelRefusal, listOrNull, numberOrNull, validateForm, type FormField, type FormKeys, type FormState, type FormStep } from './form.ts';
export { ACCOUNT_FORM, accountFormInput, accountFormValues, KEY_FORM, keyFormInput, keyFormValues, NEW_ACCOUNT_FORM, newAccountFormValues, newAccountInput } from './settings-forms.ts';
export { clampCursor, moveCursor, windowStart, type CursorKeys } from './move-cursor.ts';
export { accountsFlowCaptures, idleAccountsFlow, parseCredits, reduceAccountsFlow, type AccountsFlow, type AccountsFlowAction } from './reduce-accounts-flow.ts';
export { availableTabs, initialAppState, reduceAppState, type AppAction, type AppState, type Tab, type TabId } from './reduce-app-state.ts';
export { BATCH_FILTERS, batchesFlowCaptures, batchFinished, filterStatuses, initialBatchesFlow, reduceBatchesFlow, type BatchesFlow, type BatchesFlowAction, type BatchFilter } from './reduce-batches-flow.ts';
export { initialMediaFlow, MEDIA_STATUS_FILTERS, MEDIA_TYPE_FILTERS, mediaFlowCaptures, reduceMediaFlow, type MediaFlow, type MediaFlowAction } from './reduce-media-flow.ts';
export { idleKeysFlow, keysFlowCaptures, reduceKeysFlow, type KeysFlow, type KeysFlowAction } from './reduce-keys-flow.ts';
export { TuiContext, useTui, type TuiServices } from './tui-context.ts';
export type {
  AccountUsageRow,
  AccountView,
  ActivitySnapshot,
  AdminBatchView,
  AdminMediaView,
  BatchPage,
  BatchQuery,
  BatchStatus,
  ConnectionInfo,
  CreateAccountInput,
  CreatedKey,
  CreateKeyInput,
  KeyView,
  MediaPage,
  MediaQuery,
  MediaStatusFilter,
  MediaTypeFilter,
  ModelRow,
  SetAccountInput,
  SetKeyInput,
  StatusMessage,
  StatusTone,
  TuiAdminApi,
  UsageReport,
} from './types.ts';
export { useAdminAction } from './use-admin-action.ts';
export { useCapture } from './use-capture.ts';
export { useResource, type Resource, type ResourceOptions } from './use-resource.ts';
export { LIVE_REFRESH_MS, useLiveActivity, type LiveActivity } from './use-live-activity.ts';
export { useSelection, type Selection } from './use-selection.ts';
export { isStaleConnection, withReconnect } from './with-reconnect.ts';
