export { BatchExecutor, type BatchExecutorDeps } from './batch-executor.ts';
export { validateBatchInput, BATCH_ENDPOINTS, type BatchEndpoint, type BatchInputLine } from './validate-input.ts';
export { type BatchView, viewBatch, windowSeconds, cancelBatch, FINISHED } from './view-batch.ts';
