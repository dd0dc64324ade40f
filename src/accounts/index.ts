export { AccountGuards, type AccountGuardsOptions } from './account-guards.ts';
export { createAccountGuards, type CreateAccountGuardsOptions } from './create-account-guards.ts';
export { modelTerms, type ModelTerms } from './check-model-access.ts';
export { login, logout, SESSION_TTL_MS, type IssuedSession } from './login.ts';
export type { ActivityRange, Admission, AdmissionRequest, AnonymousRequest, AuthContext, LimitsStoreState, PassedLimits, RequestGuards, UsageViews } from './types.ts';
export { checkModelScope, createModelsThatMayServe, modelsKeyMayUse } from './key-scope.ts';
export { SPEND_LIMIT_RESETS, checkEndpoint, checkEndpointScope, countedEndpoint, keyEndpoints } from './key-scope.ts';
