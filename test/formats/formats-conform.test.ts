// Every registered wire format (the three built in, and the toy from the test tree registered
// with its one line) runs the same conformance suite.
import { listFormats, registerFormat } from '../../src/formats/index.ts';
import { describeFormatCase } from './format.case.ts';
import { toyFormat } from './toy/index.ts';

registerFormat(toyFormat);
for (const format of listFormats()) describeFormatCase(format);
