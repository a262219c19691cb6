import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { aptDecision, inputsFingerprint, lockHash, lockedVersions, missingTestPackages, npmInstallDecision, postgresInstalled } from '../../../scripts/prepareClone.mjs';

/** What `npm test` and `npm start` decide to install on a clone, from what they found. */
describe('prepareClone decisions', () => {
  const lock = { packages: { '': { name: 'arbor' }, 'node_modules/a': { version: '1.0.0' }, 'node_modules/b': { version: '2.0.0' }, 'node_modules/arbor-prompts': { resolved: 'bin/x', link: true } } };
  const locked = lockedVersions(lock);
  const hash = lockHash(JSON.stringify(lock));

  it('reads the installed versions of a lock, without the root and links', () => {
    expect(locked).toEqual({ 'node_modules/a': '1.0.0', 'node_modules/b': '2.0.0' });
    expect(lockedVersions(undefined)).toEqual({});
    expect(lockHash('x')).not.toBe(lockHash('y'));
  });

  it('runs npm ci on a bare clone, and when the lock changed since the install', () => {
    expect(npmInstallDecision({ nodeModules: 'missing', stamp: undefined, lockHash: hash, locked, installed: undefined })).toEqual({ install: true, reason: 'first run on this clone' });
    expect(npmInstallDecision({ nodeModules: 'dir', stamp: hash, lockHash: hash, locked, installed: undefined })).toEqual({ install: false });
    const bumped = { ...locked, 'node_modules/b': '2.0.1' };
    expect(npmInstallDecision({ nodeModules: 'dir', stamp: 'old', lockHash: hash, locked: bumped, installed: locked })).toEqual({ install: true, reason: 'package-lock.json changed since the last install' });
    // Installed by hand (no stamp) and missing npm's record of what it installed: installed again.
    expect(npmInstallDecision({ nodeModules: 'dir', stamp: undefined, lockHash: hash, locked, installed: undefined })).toMatchObject({ install: true, reason: expect.stringMatching(/not installed by npm/) });
    // A package missing from node_modules counts as a change.
    expect(npmInstallDecision({ nodeModules: 'dir', stamp: undefined, lockHash: hash, locked, installed: { 'node_modules/a': '1.0.0' } })).toMatchObject({ install: true });
  });

  it('keeps a node_modules whose packages are the locked ones, stamping it; never reinstalls a linked one', () => {
    expect(npmInstallDecision({ nodeModules: 'dir', stamp: undefined, lockHash: hash, locked, installed: { ...locked } })).toEqual({ install: false, writeStamp: true });
    expect(npmInstallDecision({ nodeModules: 'link', stamp: undefined, lockHash: hash, locked, installed: { ...locked } })).toEqual({ install: false, writeStamp: false });
    const linked = npmInstallDecision({ nodeModules: 'link', stamp: undefined, lockHash: hash, locked, installed: { 'node_modules/a': '0.9.0' } });
    expect(linked.install).toBe(false);
    expect(linked.warning).toMatch(/node_modules is a link .* run `npm ci` where it points/);
  });

  it('names the Debian packages the tests miss', () => {
    expect(missingTestPackages({ chromium: true, rg: true })).toEqual([]);
    expect(missingTestPackages({ chromium: false, rg: true })).toEqual(['chromium']);
    expect(missingTestPackages({ chromium: false, rg: false })).toEqual(['chromium', 'ripgrep']);
  });

  it('installs with apt-get as root or through sudo, else fails with the one command to run', () => {
    const packages = ['chromium', 'ripgrep'];
    expect(aptDecision({ packages: [], isRoot: false, sudo: false, apt: false })).toEqual({ run: 'none' });
    expect(aptDecision({ packages, isRoot: true, sudo: false, apt: true })).toEqual({ run: 'apt', sudo: false });
    expect(aptDecision({ packages, isRoot: false, sudo: true, apt: true })).toEqual({ run: 'apt', sudo: true });
    const noRoot = aptDecision({ packages, isRoot: false, sudo: false, apt: true, alternative: 'set ARBOR_CHROMIUM to a Chromium binary' });
    expect(noRoot).toEqual({ fail: 'chromium ripgrep missing, and installing needs root: run `sudo apt-get install -y --no-install-recommends chromium ripgrep` (or set ARBOR_CHROMIUM to a Chromium binary), then run this again' });
    expect('fail' in noRoot && noRoot.fail.split('\n')).toHaveLength(1);
    expect(aptDecision({ packages: ['ripgrep'], isRoot: true, sudo: false, apt: false })).toMatchObject({ fail: expect.stringMatching(/apt-get is not available/) });
  });

  it('sees PostgreSQL in /usr/lib/postgresql or on the PATH', () => {
    expect(postgresInstalled([], false)).toBe(false);
    expect(postgresInstalled(['17'], false)).toBe(true);
    expect(postgresInstalled([], true)).toBe(true);
  });
});

describe('inputsFingerprint', () => {
  it('changes when a file under the inputs is added, changed or removed, and only then', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-fingerprint-'));
    try {
      await writeFile(path.join(dir, 'package.json'), '{}');
      await mkdir(path.join(dir, 'src'));
      await writeFile(path.join(dir, 'src/a.ts'), 'a');
      const entries = ['src', 'package.json', 'README.md'];
      const first = inputsFingerprint(dir, entries);
      expect(inputsFingerprint(dir, entries)).toBe(first);
      await writeFile(path.join(dir, 'src/b.ts'), 'b');
      const added = inputsFingerprint(dir, entries);
      expect(added).not.toBe(first);
      await utimes(path.join(dir, 'src/a.ts'), new Date(2001, 1, 1), new Date(2001, 1, 1));
      expect(inputsFingerprint(dir, entries)).not.toBe(added);
      // A file outside the inputs does not count.
      const before = inputsFingerprint(dir, entries);
      await writeFile(path.join(dir, 'notes.txt'), 'x');
      expect(inputsFingerprint(dir, entries)).toBe(before);
      await rm(path.join(dir, 'src/b.ts'));
      expect(inputsFingerprint(dir, entries)).not.toBe(before);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
