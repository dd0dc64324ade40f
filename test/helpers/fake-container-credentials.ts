/**
 * A fake of the ECS / EKS Pod Identity container credentials endpoint (what the AWS SDK reads
 * at AWS_CONTAINER_CREDENTIALS_FULL_URI): short-lived keys that it rotates, as the real one does,
 * some time before they expire. It answers only with the authorization token the container
 * was given (AWS_CONTAINER_AUTHORIZATION_TOKEN). Every key set it issues is handed to `onIssue`
 * (the Bedrock fake learns it), with its expiry.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface IssuedKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

export interface FakeContainerCredentials {
  /** The URL for AWS_CONTAINER_CREDENTIALS_FULL_URI. */
  url: string;
  /** The value for AWS_CONTAINER_AUTHORIZATION_TOKEN. */
  authorizationToken: string;
  /** Every key set issued, oldest first. */
  issued: IssuedKeys[];
  /** Requests answered with keys. */
  fetches: number;
  close(): Promise<void>;
}

export async function startFakeContainerCredentials(options: {
  /** How long a key set is valid. */
  lifetimeMs: number;
  /** A new key set is issued once the current one has less than this left. */
  rotateWithinMs: number;
  onIssue: (keys: IssuedKeys) => void;
}): Promise<FakeContainerCredentials> {
  const authorizationToken = 'fake-container-authorization-token';
  const state: FakeContainerCredentials = { url: '', authorizationToken, issued: [], fetches: 0, close: async () => undefined };

  function current(): IssuedKeys {
    const last = state.issued.at(-1);
    if (last && last.expiration.getTime() - Date.now() > options.rotateWithinMs) return last;
    const n = state.issued.length + 1;
    const keys = {
      accessKeyId: `ASIAFAKEROTATED${String(n).padStart(4, '0')}`,
      secretAccessKey: `rotated/secret+key/number-${n}`,
      sessionToken: `FwoGZXIvYXdzROTATEDTOKEN${n}`,
      expiration: new Date(Date.now() + options.lifetimeMs),
    };
    state.issued.push(keys);
    options.onIssue(keys);
    return keys;
  }

  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/creds') {
      res.writeHead(404).end();
      return;
    }
    if (req.headers.authorization !== authorizationToken) {
      res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ Code: 'AccessDenied', Message: 'bad authorization token' }));
      return;
    }
    const keys = current();
    state.fetches += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ AccessKeyId: keys.accessKeyId, SecretAccessKey: keys.secretAccessKey, Token: keys.sessionToken, Expiration: keys.expiration.toISOString() }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/creds`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
