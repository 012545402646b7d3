/**
 * sparsedyn/node: the Node-only edge of sparsedyn, file access beside the root entry
 * (`import { loadUrdf, loadProblem } from 'sparsedyn/node'`). Everything here reads or writes
 * files; everything it returns (models, problems, samples, matrices) is used with the root
 * entry's functions, which run in browsers too.
 *
 * Stability: every export is stable unless its documentation carries the `@experimental` tag.
 *
 * @packageDocumentation
 * @module sparsedyn/node
 */
export { readUrdf, loadUrdf } from './urdf-file.ts';
export { parseModelSpec } from './spec.ts';
export { loadProblem, modelForProblem, withUrdfSensors } from './problem-file.ts';
export { readLog } from './log-file.ts';
export type { LogFormat } from '../io/log-reader.ts';
export { readMatrix, writeMatrix } from './matrix-file.ts';
export { findModelFile, referenceFiles } from './reference-file.ts';
export { fullCollection } from './collect.ts';
