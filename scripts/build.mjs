/**
 * The production build: the workbench UI (Vite, into dist/web) and the Node entry points (the
 * workbench, the embedded gateway's process it supervises, and the gateway's command line)
 * bundled by esbuild into dist/start.js, dist/embedded-gateway.js and dist/gateway.js, run with
 * plain `node`, with the worker threads' entries beside them (gateway/shared/module-worker.ts).
 * Dependencies stay in node_modules; the SQL migrations are copied to dist/migrations, where the
 * bundles read them (gateway/store/migrate.ts). `ensureBuilt` rebuilds only what is missing or
 * older than its sources, so the first `npm start` on a fresh checkout builds, and later ones
 * start at once. Plain JavaScript, so it runs without tsx.
 */
import fs from 'node:fs';
import path from 'node:path';
import { precompress } from './precompress.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const serverStamp = path.join(dist, '.server-build');
const serverSources = ['gateway', 'server', 'contract', 'scripts'];
const webSources = ['web', 'contract', 'vite.config.ts', 'package.json'];

/** The newest modification time of the (non-test) sources under `entries`. */
function newestSource(entries) {
  let newest = 0;
  const visit = (target) => {
    let stat;
    try {
      stat = fs.statSync(target);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(target)) {
        if (name === 'node_modules' || name === '__fixtures__' || name.startsWith('.')) continue;
        visit(path.join(target, name));
      }
    } else if (!/\.test\.tsx?$/.test(target)) {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  for (const entry of entries) visit(path.join(root, entry));
  return newest;
}

const modifiedAt = (file) => {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
};

/** Bundles the Node entry points; written beside and renamed, so a concurrent start never reads half a file. */
export async function buildServer() {
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: {
      start: 'scripts/start.ts',
      'embedded-gateway': 'scripts/embedded-gateway.ts',
      gateway: 'gateway/cli/main.ts',
      // Worker threads' entries, named by their file's base name (gateway/shared/module-worker.ts).
      'generation-writer-worker': 'gateway/store/generation-writer-worker.ts',
      'parse-worker': 'gateway/http/parse-worker.ts',
      'checkpoint-worker-entry': 'gateway/store/checkpoint-worker-entry.ts',
    },
    outdir: dist,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    sourcemap: 'linked',
    write: false,
    logLevel: 'error',
  });
  fs.mkdirSync(dist, { recursive: true });
  for (const file of result.outputFiles) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, file.contents);
    fs.renameSync(temporary, file.path);
  }
  copyMigrations();
  fs.writeFileSync(serverStamp, new Date().toISOString());
}

/**
 * The stores' SQL migrations, beside the bundles that read them at start-up: copied whole, then
 * swapped in by renames, so a concurrent start sees the old set or the new one.
 */
function copyMigrations() {
  const target = path.join(dist, 'migrations');
  const fresh = `${target}.${process.pid}.tmp`;
  const stale = `${target}.${process.pid}.old`;
  fs.rmSync(fresh, { recursive: true, force: true });
  fs.cpSync(path.join(root, 'gateway', 'store', 'migrations'), fresh, { recursive: true });
  if (fs.existsSync(target)) fs.renameSync(target, stale);
  fs.renameSync(fresh, target);
  fs.rmSync(stale, { recursive: true, force: true });
}

export async function buildWeb() {
  const { build } = await import('vite');
  await build({ configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn' });
  precompress(path.join(dist, 'web'));
}

/** Builds what is missing or stale; says so on standard error (standard output may be JSON). */
export async function ensureBuilt({ web }) {
  if (modifiedAt(serverStamp) < newestSource(serverSources)) {
    process.stderr.write('building the gateway and workbench server…\n');
    await buildServer();
  }
  if (web && modifiedAt(path.join(dist, 'web', 'index.html')) < newestSource(webSources)) {
    process.stderr.write('building the workbench UI (first run, or its sources changed)…\n');
    await buildWeb();
  }
}

if (process.argv[1] === import.meta.filename) {
  await buildServer();
  await buildWeb();
}
