/**
 * The lint rules that keep the layers (eslint.config.mjs) refuse what they should and let through what
 * they should, on probe files linted in place with the repository's own configuration: an import up the
 * host's rooms, into a higher folder of the core, past the engine's public API, and their allowed forms.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../../..');
const eslint = new ESLint({ cwd: ROOT });

/** The rules that fire on `code` as if it were the file at `file` (relative to the repository). */
async function rulesOn(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result.messages.map((m) => m.ruleId ?? m.message);
}

describe('the layer rules', () => {
  it('refuse an import from a higher room of the host, and let a lower room through', async () => {
    expect(await rulesOn('src/host/stores/probe.ts', "import type { ChatPanels } from '../chat/chatPanel';\nexport type Probe = ChatPanels;\n")).toEqual(['import-x/no-restricted-paths']);
    expect(await rulesOn('src/host/tools/probe.ts', "import type { Services } from '../services';\nexport type Probe = Services;\n")).toEqual(['import-x/no-restricted-paths']);
    expect(await rulesOn('src/host/chat/probe.ts', "import type { OpenChats } from '../stores/retention';\nexport type Probe = OpenChats;\n")).toEqual([]);
    expect(await rulesOn('src/host/probe.ts', "import type { ChatServices } from './chat/chatServices';\nexport type Probe = ChatServices;\n")).toEqual([]);
  }, 60_000);

  it('refuse an import up the core: the conversation into flows, a provider into the conversation, flows into prompts', async () => {
    expect(await rulesOn('src/core/conversation/probe.ts', "import type { FlowRunOptions } from '../flows/flowRunner';\nexport type Probe = FlowRunOptions;\n")).toEqual(['no-restricted-imports']);
    expect(await rulesOn('src/core/llm/probe.ts', "import type { CompleteOptions } from '../conversation/managerTypes';\nexport type Probe = CompleteOptions;\n")).toEqual(['no-restricted-imports']);
    expect(await rulesOn('src/core/flows/probe.ts', "import type { PromptBuilder } from '../prompts/promptBuilder';\nexport type Probe = PromptBuilder;\n")).toEqual(['no-restricted-imports']);
    expect(await rulesOn('src/core/flows/probe.ts', "import type { ConversationManager } from '../conversation/conversationManager';\nexport type Probe = ConversationManager;\n")).toEqual([]);
  }, 60_000);

  it('keep the host, the examples and the webview on their one door into the layer below', async () => {
    expect(await rulesOn('src/host/chat/probe.ts', "import type { FlowRunner } from '../../core/flows/flowRunner';\nexport type Probe = FlowRunner;\n")).toEqual(['no-restricted-imports']);
    expect(await rulesOn('examples/probe.mts', "import type { FlowRunner } from '../src/core/flows/flowRunner';\nexport type Probe = FlowRunner;\n")).toEqual(['no-restricted-imports']);
    expect(await rulesOn('webview/view/probe.ts', "import type { ChatState } from '../../src/shared/protocol';\nexport type Probe = ChatState;\n")).toEqual([]);
    expect(await rulesOn('webview/view/probe.ts', "import type { Services } from '../../src/host/services';\nexport type Probe = Services;\n")).toEqual(['no-restricted-imports']);
  }, 60_000);
});
