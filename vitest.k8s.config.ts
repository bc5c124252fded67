import { defineConfig } from 'vitest/config';

// `npm run test:k8s`: the conformance suite against a real cluster ($KUBECONFIG). Not part of
// `npm test`: no cluster runs on these machines (docs/kubernetes.md, Conformance suite).
export default defineConfig({
  test: {
    include: ['test/k8s/**/*.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
  },
});
