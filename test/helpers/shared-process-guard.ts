// The `unit` project's setup file (vitest.config.ts), run before each of its test files. Those
// files share a fork's process and loaded modules, one after another (isolate: false), so each
// must start as it would in a fresh process:
// - the wire formats are the built-in ones: a format a file registered (itself, or a plugin's
//   `wireFormats` when the file loaded the plugin, which lasts the process as in the gateway) is
//   removed after the file, as a fresh process would not have it;
// - no upstream credential is remembered for redaction (providers set up by a file remember
//   theirs for the process's life, as in the gateway);
// - the environment is what the file found: a file that changes a variable must restore it, or
//   it fails here.
import { afterAll, expect } from 'vitest';
import { listFormats, unregisterFormat } from '../../src/formats/index.ts';
import { forgetSecrets } from '../../src/util/index.ts';

const formatsBefore = new Set(listFormats().map((format) => format.id));
const envBefore = { ...process.env };

afterAll(() => {
  for (const format of listFormats()) if (!formatsBefore.has(format.id)) unregisterFormat(format.id);
  forgetSecrets();
  expect({ ...process.env }, 'environment variables this file changed and did not restore').toEqual(envBefore);
});
