/** The credit engine shared by every instance of a database store (holds, leased slices, the settlement outbox). */
export { SharedCredits, Slice, MAX_OUTBOX_BACKLOG, type SharedCreditsOptions, type SharedEntry, type SharedHold } from './shared-credits.ts';
export { openSharedCredits, type OpenSharedCreditsOptions } from './open-shared-credits.ts';
