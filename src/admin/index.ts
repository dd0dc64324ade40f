/** The admin folder's exports: what other folders may import from it. */
export { accountRouter, type AccountContext } from './account-router.ts';
export { createKey, type AccountView, type KeyView } from './accounts.ts';
export type { AdminBatchView } from './batches-router.ts';
export type { AccountUsageRow } from './billing-router.ts';
export type { AdminMediaView } from './media-router.ts';
export { adminRouter, type ActivitySnapshot, type AdminClient, type AdminRouter } from './router.ts';
export { SPEND_LIMIT_RESETS, TIERS, addCreditsInput, createAccountInput, createKeyInput, describeIssue, setAccountInput, setKeyInput, type CreateAccountInput, type CreateKeyInput, type SetAccountInput, type SetKeyInput } from './settings-schema.ts';
export { retryAfterMeta, type AdminContext } from './trpc.ts';
export type { AdminVideoView } from './videos-router.ts';
