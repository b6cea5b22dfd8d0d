import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The UI is built into dist/web and served by the BFF. In development (`npm run dev`) the BFF
// mounts Vite as middleware, so /api and the pages share one origin and one Host check.
export default defineConfig({
  root: 'web',
  plugins: [react(), tailwindcss()],
  build: { outDir: '../dist/web', emptyOutDir: true, sourcemap: true },
});
