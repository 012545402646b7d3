import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['spec/**/*.spec.ts'],
    // the package tests run against dist/: built (or, in CI, checked) once before the test files start
    globalSetup: ['spec/package/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // both cores (vitest's default leaves one idle): on this project's 2-core machine the suite took
    // 675 s with one worker and 609 s with two (AMD EPYC, 2026-11-29)
    maxWorkers: 2,
  },
});
