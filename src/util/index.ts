export { randomToken, generateApiKey, generateSessionToken, sha256, maskKey, hashPassword, verifyPassword, newId } from './secrets.ts';
export { systemClock, createClock, unixSeconds, type Clock } from './clock.ts';
export { FastAbortController, onAbort, undiciSignal, watchOf, type AbortWatch, type EmitterSignal } from './abort.ts';
