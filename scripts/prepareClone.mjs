// What `npm test` and `npm start` need on a clone before they can run, found and installed on first use:
// the npm dependencies exactly as package-lock.json locks them, and Debian's chromium and ripgrep (and
// PostgreSQL for the team-store tests). Each install says in one line what it does and why, and a step
// that cannot run fails with one line saying what to run instead.
//
// Node built-ins only: this runs before node_modules exists. The decisions are pure functions of what
// was found (exported for test/unit/scripts/prepareClone.test.ts); the functions that look and install
// are the thin part around them.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Written into node_modules after `npm ci`: the SHA-256 of the package-lock.json it installed. */
export const STAMP_FILE = '.arbor-lock-sha256';

/** The SHA-256 (hex) of a lock file's text. */
export function lockHash(text) {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The installed `path → version` of a lock file's `packages` (package-lock.json, or the copy npm keeps
 * in node_modules/.package-lock.json), leaving out the root and links, which npm does not install.
 */
export function lockedVersions(lock) {
  const versions = {};
  for (const [key, entry] of Object.entries(lock?.packages ?? {})) {
    if (!key || !entry || entry.link) continue;
    versions[key] = entry.version ?? '';
  }
  return versions;
}

/**
 * Whether `npm ci` must run, and why, from what was found:
 * `nodeModules` is 'missing', 'dir' or 'link' (a symbolic link, e.g. to another checkout's folder);
 * `stamp` the hash written after the last install here (undefined when none); `lockHash` the current
 * lock's hash; `locked` and `installed` the versions of the lock file and of npm's copy in node_modules
 * (undefined when that copy is missing), compared when the stamp does not settle it.
 * Answers `{ install: false }`, `{ install: true, reason }`, or for a linked folder that is out of date
 * `{ install: false, warning }` (never reinstalled from here: it belongs to another checkout).
 */
export function npmInstallDecision({ nodeModules, stamp, lockHash: hash, locked, installed }) {
  if (nodeModules === 'missing') return { install: true, reason: 'first run on this clone' };
  if (stamp !== undefined && stamp === hash) return { install: false };
  if (installed && sameVersions(locked, installed)) return { install: false, writeStamp: nodeModules === 'dir' };
  const reason = stamp === undefined && !installed ? 'node_modules was not installed by npm from this lock file' : 'package-lock.json changed since the last install';
  if (nodeModules === 'link') {
    return { install: false, warning: `node_modules is a link to another folder whose packages differ from package-lock.json (${reason}): run \`npm ci\` where it points, or remove the link` };
  }
  return { install: true, reason };
}

function sameVersions(a = {}, b = {}) {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k]);
}

/** The Debian packages the tests need that are missing, from what was found (`chromium`: a binary at the path the webview tests use). */
export function missingTestPackages({ chromium, rg }) {
  return [...(chromium ? [] : ['chromium']), ...(rg ? [] : ['ripgrep'])];
}

/**
 * How to install Debian `packages`: `{ run: 'none' }` when there are none, `{ run: 'apt', sudo }` when
 * apt-get can run (as root, or through `sudo -n` without a password prompt), otherwise `{ fail }` with
 * the one line to print (what to run by hand, and `alternative` when there is one).
 */
export function aptDecision({ packages, isRoot, sudo, apt, alternative }) {
  if (packages.length === 0) return { run: 'none' };
  const list = packages.join(' ');
  if (!apt) return { fail: `${list} missing and apt-get is not available here: install ${list} with this system's package manager${alternative ? `, or ${alternative}` : ''}, then run this again` };
  if (isRoot) return { run: 'apt', sudo: false };
  if (sudo) return { run: 'apt', sudo: true };
  return { fail: `${list} missing, and installing needs root: run \`sudo apt-get install -y --no-install-recommends ${list}\`${alternative ? ` (or ${alternative})` : ''}, then run this again` };
}

/** Whether Debian's PostgreSQL server binaries are there: `libDirs` the versions under /usr/lib/postgresql with an initdb, `onPath` initdb on the PATH. */
export function postgresInstalled(libDirs, onPath) {
  return onPath || libDirs.length > 0;
}

// ---- looking and installing ----

const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function nodeModulesKind(dir) {
  try {
    return lstatSync(dir).isSymbolicLink() ? 'link' : 'dir';
  } catch {
    return 'missing';
  }
}

/**
 * Runs `npm ci` when node_modules is missing or out of date with package-lock.json, saying so in one
 * line prefixed with `tag`; throws an Error with one actionable line when it fails.
 */
export function ensureNpmDependencies(tag) {
  const lockFile = path.join(ROOT, 'package-lock.json');
  const modules = path.join(ROOT, 'node_modules');
  const lockText = readFileSync(lockFile, 'utf8');
  const hash = lockHash(lockText);
  const kind = nodeModulesKind(modules);
  const stampFile = path.join(modules, STAMP_FILE);
  const stamp = existsSync(stampFile) ? readFileSync(stampFile, 'utf8').trim() : undefined;
  const hidden = kind === 'missing' ? undefined : readJson(path.join(modules, '.package-lock.json'));
  const decision = npmInstallDecision({
    nodeModules: kind,
    stamp,
    lockHash: hash,
    locked: lockedVersions(JSON.parse(lockText)),
    installed: hidden ? lockedVersions(hidden) : undefined,
  });
  if (decision.warning) console.warn(`[${tag}] ${decision.warning}`);
  if (decision.writeStamp) writeFileSync(stampFile, `${hash}\n`);
  if (!decision.install) return;
  console.log(`[${tag}] Installing the locked npm dependencies (npm ci): ${decision.reason}`);
  // npm's own notices (funding, audit, a newer npm) are noise here; its warnings and errors still show.
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=warn'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error(`npm ci failed (exit ${result.status ?? result.signal}): see npm's message above; if the registry is unreachable, check the network or proxy (\`npm ping\`), then run this again`);
  }
  writeFileSync(stampFile, `${hash}\n`);
}

/** The Chromium the webview tests launch (the same lookup as test/webview/chromium.ts). */
export function chromiumPath() {
  return process.env.ARBOR_CHROMIUM ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

function canSudo() {
  return has('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
}

/**
 * Installs Debian's chromium and ripgrep for the tests when missing, through scripts/installCodeServer.sh
 * (`--packages-only`: not code-server itself); throws one actionable line when that cannot run.
 */
export function ensureTestPackages(tag) {
  const packages = missingTestPackages({ chromium: existsSync(chromiumPath()), rg: has('rg') });
  const decision = aptDecision({
    packages,
    isRoot: process.getuid?.() === 0,
    sudo: packages.length > 0 && process.getuid?.() !== 0 && canSudo(),
    apt: has('apt-get'),
    alternative: packages.includes('chromium') ? 'set ARBOR_CHROMIUM to a Chromium binary' : undefined,
  });
  if (decision.fail) throw new Error(decision.fail);
  if (decision.run === 'none') return;
  console.log(`[${tag}] Installing ${packages.join(' and ')} with apt-get${decision.sudo ? ' (sudo)' : ''}: the webview tests run in Chromium, and the tools' search uses ripgrep`);
  const result = spawnSync('bash', [path.join(ROOT, 'scripts/installCodeServer.sh'), '--packages-only'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`installing ${packages.join(' and ')} failed (see above): run \`sudo apt-get install -y --no-install-recommends ${packages.join(' ')}\`, then run this again`);
}

/**
 * Installs Debian's PostgreSQL server binaries for the team-store tests when missing and possible
 * (scripts/ensurePostgres.sh, which otherwise prints why those tests will be skipped).
 */
export function ensurePostgres(tag) {
  const libDirs = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').filter((v) => existsSync(path.join('/usr/lib/postgresql', v, 'bin/initdb')))
    : [];
  if (postgresInstalled(libDirs, has('initdb'))) return;
  console.log(`[${tag}] PostgreSQL is missing: the team-store tests run their own throwaway cluster`);
  spawnSync('bash', [path.join(ROOT, 'scripts/ensurePostgres.sh')], { cwd: ROOT, stdio: 'inherit' });
}

/** What the packaged extension is made from (scripts/build.mjs's inputs and what .vscodeignore ships). */
export const EXTENSION_INPUTS = ['src', 'webview', 'media', 'prompts', 'package.json', 'package-lock.json', 'README.md', 'LICENSE', '.vscodeignore', 'scripts/build.mjs', 'tsconfig.json'];

/**
 * A fingerprint of the files under `entries` (paths relative to `root`, files or folders): their
 * paths, sizes and modification times. Equal fingerprints mean a build would make the same package,
 * so `npm start` reuses the last one.
 */
export function inputsFingerprint(root, entries = EXTENSION_INPUTS) {
  const hash = createHash('sha256');
  const visit = (rel) => {
    let stat;
    try {
      stat = statSync(path.join(root, rel));
    } catch {
      hash.update(`${rel}\0missing\n`);
      return;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(path.join(root, rel)).sort()) visit(path.join(rel, name));
    } else {
      hash.update(`${rel}\0${stat.size}\0${stat.mtimeMs}\n`);
    }
  };
  for (const entry of entries) visit(entry);
  return hash.digest('hex');
}
