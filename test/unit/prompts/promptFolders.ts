import { afterEach } from 'vitest';
import { FileSystemPromptLibrary } from '../../../src/core/prompts/fileSystemPromptLibrary';
import { PromptBuilder, type PromptBuilderOptions } from '../../../src/core/prompts/promptBuilder';
import { tempPrompts, type TempPrompts } from './tempPrompts';

/** One opened prompt folder: the real temp folder, the library read from it and a builder over that library. */
export interface OpenedPrompts {
  folder: TempPrompts;
  library: FileSystemPromptLibrary;
  builder: PromptBuilder;
}

/**
 * Call once at the top of a test file. Returns `open(files, options)`, which writes `files` into a real
 * temp prompt folder and opens a library and a builder over it; after each test every library opened is
 * disposed and its folder deleted, so tests neither leak watchers nor see each other's files.
 */
export function usePromptFolders(): (files: Record<string, string>, options?: PromptBuilderOptions) => Promise<OpenedPrompts> {
  let opened: OpenedPrompts[] = [];
  afterEach(async () => {
    const closing = opened;
    opened = [];
    for (const { library, folder } of closing) {
      library.dispose();
      await folder.remove();
    }
  });
  return async (files, options = {}) => {
    const folder = await tempPrompts(files);
    const library = await FileSystemPromptLibrary.open(folder.dir).catch(async (error: unknown) => {
      await folder.remove();
      throw error;
    });
    const entry = { folder, library, builder: new PromptBuilder(library, options) };
    opened.push(entry);
    return entry;
  };
}
