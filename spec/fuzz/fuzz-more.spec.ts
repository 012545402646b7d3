/** The second half of the fuzz targets for their short budget (short-budget.ts). */
import { describe } from 'vitest';
import { fuzzTargets, HALVES } from './short-budget.ts';

describe('fuzz targets (short budget), second half', () => fuzzTargets(HALVES[1]));
