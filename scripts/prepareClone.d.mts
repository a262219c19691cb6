// Types of scripts/prepareClone.mjs (plain JavaScript, since it runs before node_modules exists).

/** The repository's root folder. */
export declare const ROOT: string;
/** The file in node_modules holding the SHA-256 of the lock file `npm ci` installed. */
export declare const STAMP_FILE: string;
/** The SHA-256 (hex) of a lock file's text. */
export declare function lockHash(text: string): string;
/** The installed `path → version` of a lock file's `packages`, without the root and links. */
export declare function lockedVersions(lock: unknown): Record<string, string>;

/** What was found about node_modules and the lock file. */
export interface NpmFindings {
  nodeModules: 'missing' | 'dir' | 'link';
  stamp: string | undefined;
  lockHash: string;
  locked: Record<string, string>;
  installed: Record<string, string> | undefined;
}
/** Whether `npm ci` must run and why; a linked node_modules is never reinstalled, only warned about. */
export declare function npmInstallDecision(found: NpmFindings): { install: boolean; reason?: string; warning?: string; writeStamp?: boolean };
/** The Debian packages the tests need that are missing. */
export declare function missingTestPackages(found: { chromium: boolean; rg: boolean }): string[];
/** How to install Debian packages: not at all, with apt-get (through sudo or not), or the one line to print instead. */
export declare function aptDecision(found: { packages: string[]; isRoot: boolean; sudo: boolean; apt: boolean; alternative?: string }): { run: 'none' } | { run: 'apt'; sudo: boolean } | { fail: string; run?: undefined };
/** Whether Debian's PostgreSQL server binaries are there. */
export declare function postgresInstalled(libDirs: string[], onPath: boolean): boolean;
/** The Chromium the webview tests launch. */
export declare function chromiumPath(): string;
/** Runs `npm ci` when node_modules is missing or stale; throws one actionable line when it fails. */
export declare function ensureNpmDependencies(tag: string): void;
/** Installs chromium and ripgrep when missing; throws one actionable line when that cannot run. */
export declare function ensureTestPackages(tag: string): void;
/** Installs PostgreSQL when missing and possible, else its script says the team-store tests will skip. */
export declare function ensurePostgres(tag: string): void;
/** What the packaged extension is made from, relative to the repository's root. */
export declare const EXTENSION_INPUTS: string[];
/** A fingerprint of the paths, sizes and modification times of the files under `entries`. */
export declare function inputsFingerprint(root: string, entries?: string[]): string;
