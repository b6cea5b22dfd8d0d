/**
 * Brotli and gzip copies of the built UI's text files (`app.js` → `app.js.br`, `app.js.gz`),
 * made once at build time at the highest levels, so the workbench serves them without
 * compressing per request. Plain JavaScript, as build.mjs is.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const COMPRESSIBLE = /\.(?:js|css|html|svg|json|txt)$/;

export function precompress(folder) {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      precompress(file);
      continue;
    }
    if (!COMPRESSIBLE.test(entry.name)) continue;
    const content = fs.readFileSync(file);
    fs.writeFileSync(
      `${file}.br`,
      zlib.brotliCompressSync(content, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: content.length,
        },
      }),
    );
    fs.writeFileSync(
      `${file}.gz`,
      zlib.gzipSync(content, { level: zlib.constants.Z_BEST_COMPRESSION }),
    );
  }
}
