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
    // the modules a worker has imported are kept for its next test files (each file still runs
    // afresh): the suite re-evaluated the same graph of ~300 modules for each of its 136 files,
    // 103-115 s of "import" time; without it 26-28 s, and the run took 517-528 s instead of
    // 612-646 s (AMD EPYC, 2026-11-29, locally and in a fresh clone). A file that mocks a module
    // (vi.mock) imports what it tests afresh (vi.resetModules, then import()) and checks that its
    // mock is in force: a module an earlier file imported would otherwise keep the real one.
    isolate: false,
  },
});
