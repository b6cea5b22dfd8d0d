import fs from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * The three boxes import from `contract/` only, never from each other: the BFF reaches the
 * gateway over HTTP, and the browser reaches the BFF over HTTP. Enforced here so a shortcut
 * fails the lint instead of quietly coupling them.
 */
const acrossBoxes = (folder) => ({
  group: [`**/${folder}/**`, `../${folder}`, `../../${folder}`],
  message: `Import across boxes is not allowed: talk to ${folder}/ over HTTP, share types through contract/.`,
});
const boundary = (forbidden, more = []) => ({
  'no-restricted-imports': ['error', { patterns: [...forbidden.map(acrossBoxes), ...more] }],
});

/**
 * Inside the gateway, dependencies point one way: routes → forms → pipeline → providers →
 * canonical. A layer may not import one above it (docs/architecture.md).
 */
const layers = ['routes', 'forms', 'pipeline', 'providers', 'canonical'];
const gatewayLayers = layers.slice(1).map((layer, index) => ({
  files: [`gateway/${layer}/**/*.ts`],
  ignores: ['**/*.test.ts'],
  rules: boundary(
    ['web', 'server'],
    layers.slice(0, index + 1).map((above) => ({
      group: [`**/${above}/**`, `../${above}`, `../../${above}`],
      message: `gateway/${layer} may not import gateway/${above}: dependencies point routes → forms → pipeline → providers → canonical.`,
    })),
  ),
}));

/**
 * A workbench feature does not reach into another's files: what two features share lives in
 * web/api, web/components or web/lib (docs/architecture.md).
 */
const features = fs
  .readdirSync('web/features', { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const webFeatures = features.map((feature) => ({
  files: [`web/features/${feature}/**/*.{ts,tsx}`],
  rules: boundary(
    ['server', 'gateway'],
    features
      .filter((other) => other !== feature)
      .map((other) => ({
        group: [
          `**/features/${other}/**`,
          `../${other}/**`,
          `../../${other}/**`,
          `../../../${other}/**`,
        ],
        message: `web/features/${feature} may not import web/features/${other}: share through web/api, web/components or web/lib.`,
      })),
  ),
}));

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'data', '.tmp', 'test-results', 'playwright-report'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      'no-console': ['error', { allow: ['warn', 'error'] }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...boundary(['server', 'gateway']).valueOf(),
    },
  },
  ...webFeatures,
  { files: ['server/**/*.ts'], rules: boundary(['web', 'gateway']) },
  { files: ['gateway/**/*.ts'], rules: boundary(['web', 'server']) },
  ...gatewayLayers,
  { files: ['contract/**/*.ts'], rules: boundary(['web', 'server', 'gateway']) },
  // Command lines, scripts, benchmarks and tests talk to people on the terminal.
  {
    files: ['gateway/cli/**', 'scripts/**', 'bench/**', 'e2e/**', '**/*.test.ts', '**/*.test.tsx'],
    rules: { 'no-console': 'off' },
  },
);
