import '@testing-library/jest-dom/vitest';
import './dom-polyfills';
