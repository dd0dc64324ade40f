// The first look for keys at start-up: the warning for a gateway with no AWS identity, without
// letting a slow source (IMDS off EC2 waits for its timeouts) hold the start-up back.
import { firstLine, type AwsCredentialsProvider } from './resolve-credentials.ts';

/** How long start-up waits for the first keys; a later failure is still warned about. */
export const PROBE_MS = 1000;

/** Asks `credentials` (from `source`) once, warming its cache; `warn` is told when it finds none, now or after `PROBE_MS`. */
export async function probeCredentials(credentials: AwsCredentialsProvider, source: string, warn: (message: string) => void, waitMs = PROBE_MS): Promise<void> {
  const first = credentials().then(
    () => undefined,
    (error: Error) => warn(`no AWS credentials from the ${source} (${firstLine(error.cause ?? error)}): calls answer 502 provider_error until it finds keys (docs/providers.md, Bedrock)`),
  );
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
    timer.unref();
  });
  await Promise.race([first, bound]);
  clearTimeout(timer);
}
