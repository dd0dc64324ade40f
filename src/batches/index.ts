export { BatchExecutor, lineRequestId, type BatchExecutorDeps } from './batch-executor.ts';
export { validateBatchInput, type BatchEndpoint, type BatchInputLine } from './validate-input.ts';
export { type BatchView, type NewBatch, viewBatch, newBatchRecord, windowSeconds, cancelBatch, FINISHED } from './view-batch.ts';
export { countLines, finishBatch, resultFileIds, type BatchEnd, type FinishBatchDeps } from './finish-batch.ts';
export { batchEndpointList, EMBEDDINGS_ENDPOINT, MODERATIONS_ENDPOINT } from './format-of-endpoint.ts';
export { purgeExpiredFiles, startFilesExpiry } from './expire-files.ts';
export { refuseDeletingBatchInput, refuseOverOpenBatches } from './input-in-use.ts';
