// A toy fourth wire format, kept in the test tree: one folder and one registry line (a plugin's
// `wireFormats`, or `registerFormat` in a test) make it the gateway's, inbound and upstream.
// Its model and stream flag live in the path, its credential in a header of its own, and its
// streams are binary frames: everything a real next format (Gemini, Bedrock) brings.
import { defineFormat, type CloudFace, type RouteTarget } from 'gateway/plugin-kit';
import { toyCodec } from './codec.ts';
import { binaryFraming } from './frame-binary.ts';

/** `<prefix><model>:talk` or `…:stream`; the model may hold a slash (provider/model). */
function readToyPath(prefix: string): (pathname: string) => RouteTarget | undefined {
  return (pathname) => {
    const rest = decodeURIComponent(pathname.slice(prefix.length));
    const colon = rest.lastIndexOf(':');
    const action = rest.slice(colon + 1);
    if (colon <= 0 || (action !== 'talk' && action !== 'stream')) return undefined;
    return { model: rest.slice(0, colon), stream: action === 'stream' };
  };
}

// A cloud's API it is also sold on (as Messages is on Bedrock Runtime), whose SDKs are AWS-style: its route there and
// a path of it nothing serves get their error headers and request id, and its batch route names the plugin format that serves it.
const toyCloud: CloudFace = {
  paths: ['/toy-cloud'],
  requestIdHeader: 'x-toy-cloud-request-id',
  awsErrors: true,
  otherFormats: [{ format: 'toy-batch', method: 'POST', pattern: /^\/toy-cloud\/[^/]+\/batch$/, missing: 'The toy cloud batch route comes with the toy-batch plugin.' }],
};

export const toyFormat = defineFormat({
  id: 'toy',
  title: 'Toy chat (test tree)',
  routes: [
    { method: 'POST', path: '/toy/v1/chat/**', from: 'path', readPath: readToyPath('/toy/v1/chat/') },
    // On its cloud's API: errors and request ids as the cloud says (`clouds`), nothing said here.
    { method: 'POST', path: '/toy-cloud/chat/**', from: 'path', readPath: readToyPath('/toy-cloud/chat/') },
  ],
  credentials: [{ header: 'x-toy-key' }, { query: 'toy_key' }],
  // Only its SDKs ask under /toy/: an unknown path there is answered in the toy's error shape.
  clients: { pathPrefixes: ['/toy/'] },
  clouds: [toyCloud],
  framing: binaryFraming,
  codec: toyCodec,
  terminal: (record) => (record.event === 'end' || record.event === 'trouble' ? 'complete' : undefined),
  passthrough: {},
});
