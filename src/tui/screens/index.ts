export { BATCHES_PAGE_SIZE, BatchesScreen } from './batches-screen.tsx';
export { AccountsScreen } from './accounts-screen.tsx';
export { KeysScreen } from './keys-screen.tsx';
export { MEDIA_PAGE_SIZE, MediaScreen } from './media-screen.tsx';
export { ModelsScreen } from './models-screen.tsx';
export { OverviewScreen } from './overview-screen.tsx';
export type { ScreenProps } from './types.ts';
