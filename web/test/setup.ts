import '@testing-library/jest-dom/vitest';
import './dom-polyfills';
import { configure } from '@testing-library/react';

// findBy and waitFor wait for a state; under two busy workers a state can take over the
// default 1 s to arrive, and a test must not fail for the machine's load.
configure({ asyncUtilTimeout: 5_000 });
