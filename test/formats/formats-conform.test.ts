// Every registered wire format runs the same conformance suite: the built-in ones, the formats
// the built-in plugins contribute (bedrock-converse; registered by the real plugin loader, as at
// start-up) and the toy from the test tree registered with its one line.
import { listFormats, registerFormat } from '../../src/formats/index.ts';
import { BUILTIN_PLUGIN_NAMES, loadPlugin } from '../../src/providers/load-plugin.ts';
import { REPO_ROOT } from '../helpers/spawn-gateway.ts';
import { describeFormatCase } from './format.case.ts';
import { toyFormat } from './toy/index.ts';

for (const name of BUILTIN_PLUGIN_NAMES) await loadPlugin(name, name, REPO_ROOT);
registerFormat(toyFormat);
for (const format of listFormats()) describeFormatCase(format);
