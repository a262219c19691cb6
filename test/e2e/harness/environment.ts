/** What the suite's global setup hands every test file: where VS Code and its folders are. */
export interface E2eEnvironment {
  /** The workbench URL with the sample workspace open. */
  url: string;
  workspace: string;
  dataDir: string;
  extensionsDir: string;
  fakeLlmPort: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    arborE2e: E2eEnvironment;
  }
}
