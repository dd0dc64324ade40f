import { describeCreditsContract } from './credits.case.ts';

/** The in-process engine: the file store's credit book and usage.jsonl. */
describeCreditsContract('file store (in process)', { config: async () => ({}) });
