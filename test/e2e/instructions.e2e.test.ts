import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/** The chat requests the suite's fake model server received, bodies parsed. */
async function sentBodies(port: number): Promise<Array<{ messages: Array<{ role: string; content: string }> }>> {
  const response = await fetch(`http://127.0.0.1:${port}/__fake/chat-requests`);
  const requests = (await response.json()) as Array<{ rawBody: string }>;
  return requests.map((r) => JSON.parse(r.rawBody));
}

/**
 * Instruction files of other assistants (AGENTS.md, Copilot's `.instructions.md`, Cursor's rules): those
 * that apply to the files in play show as chips on the request message, their text arrives in the system
 * message of the request the model server receives, after the system prompt; a chip's toggle leaves its
 * file out of the next request; and the context meter's breakdown counts them as Instructions.
 */
describe('instruction files', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const workspace = () => session.env.workspace;
  const AGENTS = 'AGENTS-MARKER: run npm test before you answer.';
  const TS_RULE = 'TS-RULE-MARKER: prefer readonly arrays in TypeScript.';
  const CURSOR_RULE = 'CURSOR-MARKER: name things plainly.';
  const PY_RULE = 'PY-MARKER: this must not be sent for a .ts file.';
  /** What this test adds to the sample workspace (which has none of them), removed afterwards. */
  const created = ['AGENTS.md', '.github', '.cursor'];

  async function put(rel: string, text: string): Promise<void> {
    const abs = path.join(workspace(), ...rel.split('/'));
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, text);
  }

  const chipPaths = async () => chat().messagesOf('user').last().locator('[data-testid="instruction-chip"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')));
  const lastSystem = async () => {
    const bodies = await sentBodies(session.env.fakeLlmPort);
    expect(bodies.length).toBeGreaterThan(0);
    return bodies[bodies.length - 1].messages.filter((m) => m.role === 'system').map((m) => m.content);
  };

  beforeAll(async () => {
    await put('AGENTS.md', `# Agents\n\n${AGENTS}\n`);
    await put('.github/instructions/ts.instructions.md', `---\napplyTo: "**/*.ts"\ndescription: TypeScript\n---\n${TS_RULE}\n`);
    await put('.github/instructions/py.instructions.md', `---\napplyTo: "**/*.py"\n---\n${PY_RULE}\n`);
    await put('.cursor/rules/x.mdc', `---\ndescription: Naming\nglobs: src/**/*.ts\nalwaysApply: false\n---\n${CURSOR_RULE}\n`);
  });

  afterAll(async () => {
    for (const rel of created) await rm(path.join(workspace(), rel), { recursive: true, force: true });
  });

  it('shows the files that apply to an attached .ts file, sends them after the system prompt, and leaves out one toggled off', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await chat().byTestId('attach-file').click();
    const query = chat().byTestId('file-query');
    await query.waitFor({ timeout: 15_000 });
    await query.fill('cart');
    const option = chat().byTestId('file-option').filter({ hasText: 'src/cart.ts' }).first();
    await option.waitFor({ timeout: 15_000 });
    await option.click();
    await chat().byTestId('attachment').first().waitFor({ timeout: 15_000 });

    // The meter counts the instructions the attachment brings before anything is sent.
    const meter = chat().byTestId('context-meter');
    await expect.poll(async () => (await meter.getAttribute('title')) ?? '', { timeout: 30_000 }).toMatch(/Instructions: [1-9]/);

    await chat().send('Review this file');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toContain('Echo: Review this file');
    await chat().waitIdle();

    // Chips on the request message: AGENTS.md, then the rules whose globs match src/cart.ts (by path).
    await expect.poll(chipPaths, { timeout: 30_000 }).toEqual(['AGENTS.md', '.cursor/rules/x.mdc', '.github/instructions/ts.instructions.md']);
    await session.workbench.screenshot('instruction-chips');

    // The request: one system message holding the three files (the py rule left out), the prompt first.
    const system = await lastSystem();
    expect(system).toHaveLength(1);
    for (const marker of [AGENTS, TS_RULE, CURSOR_RULE]) expect(system[0]).toContain(marker);
    expect(system[0]).not.toContain(PY_RULE);
    expect(system[0]).toContain('## Instructions from AGENTS.md');
    // The sample workspace's default system prompt comes before the instructions.
    const promptAt = system[0].indexOf('You are');
    if (promptAt >= 0) expect(promptAt).toBeLessThan(system[0].indexOf('# Project instructions'));
    expect(await meter.getAttribute('title')).toMatch(/Instructions: [1-9]/);

    // Toggle the Cursor rule off: the chip says so, and the next request leaves its text out.
    const cursorChip = chat().frame.locator('[data-testid="instruction-chip"][data-path=".cursor/rules/x.mdc"]').last();
    await cursorChip.locator('[data-testid="instruction-toggle"]').click();
    await expect.poll(() => cursorChip.getAttribute('data-excluded'), { timeout: 15_000 }).toBe('true');

    await chat().send('And now?');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toContain('Echo: And now?');
    await chat().waitIdle();
    const next = await lastSystem();
    expect(next).toHaveLength(1);
    expect(next[0]).toContain(AGENTS);
    expect(next[0]).toContain(TS_RULE);
    expect(next[0]).not.toContain(CURSOR_RULE);
    // The new request message still lists the excluded rule (to turn it back on), marked as off.
    const lastChips = chat().messagesOf('user').last().locator('[data-testid="instruction-chip"]');
    await expect.poll(() => lastChips.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-path')}:${e.getAttribute('data-excluded')}`)), { timeout: 30_000 }).toEqual([
      'AGENTS.md:false',
      '.cursor/rules/x.mdc:true',
      '.github/instructions/ts.instructions.md:false',
    ]);
  });
});
