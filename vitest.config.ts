import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['spec/**/*.spec.ts'],
    // the package tests run against dist/: built (or, in CI, checked) once before the test files start
    globalSetup: ['spec/package/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
