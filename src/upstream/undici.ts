import type * as Undici from 'undici';
import { loadOnUse } from '../util/index.ts';

/** undici, read when the first pool is made or the first error classified: a CLI command never calls upstream. */
export const undici = loadOnUse<typeof Undici>('undici');
