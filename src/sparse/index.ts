/**
 * sparsedyn/sparse: sparse LU for a matrix whose pattern is fixed and whose values change.
 * Offline: compress → analyze (BTF + per-block ordering + exact symbolic LU) → SymbolicLU (JSON).
 * Runtime: factor / NumericLU.refactor (in place, exact flop counters) → solve / solveMany.
 * Structure: maxtrans, structuralRank, dmperm (rectangular patterns too), btf, scc.
 * Matrix files: parse and format .mtx (Matrix Market) and .tri (triplet) text here; reading and
 * writing the files is in sparsedyn/node (readMatrix, writeMatrix).
 *
 * Stability: every export is stable unless its documentation carries the `@experimental` tag.
 *
 * @packageDocumentation
 * @module sparsedyn/sparse
 */
export { csc, checkPattern, nnz, type CscMatrix } from './csc.ts';
export { compress, assembleValues, type CscAssembly } from './compress.ts';
export { transpose } from './transpose.ts';
export { permute, invertPermutation } from './permute.ts';
export { gaxpy, matvec, relativeResidual } from './gaxpy.ts';
export { maxtrans, type Matching } from './maxtrans.ts';
export { structuralRank, type StructuralRank } from './srank.ts';
export { dmperm, type CoarseDM } from './dmperm.ts';
export { scc, type Components } from './scc.ts';
export { btf, type BlockTriangularForm } from './btf.ts';
export { amd, symmetricPattern } from './amd.ts';
export { colamd } from './colamd.ts';
export { markowitz } from './markowitz.ts';
export { minimumDegree, type MinimumDegreeOptions } from './mindegree.ts';
export { ORDERINGS, AUTO_ORDERINGS, AUTO_ORDERINGS_LARGE, AUTO_LARGE_BLOCK, BlockPatterns, orderBlock, isOrderingName, type OrderingName } from './orderings.ts';
export { luPattern, type LuPattern } from './lu-pattern.ts';
export { SymbolicLU, type BlockOrdering, type OrderingScore, type SymbolicLUJSON, type BlockPattern } from './symbolic.ts';
export { analyze, type AnalyzeOptions } from './analyze.ts';
export { NumericLU, factor, type FactorOptions } from './numeric.ts';
export { solveReach, type SolveReach } from './reach.ts';
export { ConditionEstimator, Norm1Estimator, type LinearOperator, type CscValues, type ConditionEstimatorOptions } from './condest.ts';
export { luSolve } from './lusolve.ts';
export { parseMatrixMarket, parseTriplet, formatMatrixMarket, formatTriplet, MatrixFormatError, MatrixMarketReader, TripletReader, MAX_MATRIX_ORDER, MAX_MATRIX_ENTRIES, type MatrixParseOptions, type MatrixReader } from './io.ts';
export { SingularPivotError, StructurallySingularError, type MatrixNames, type PivotCandidate } from './errors.ts';
