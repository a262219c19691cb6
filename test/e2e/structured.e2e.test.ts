import { describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/** A chat request as the fake model server received it: the parsed body of either wire format. */
interface SentBody {
  messages?: Array<{ role: string; content: string }>;
  /** Ollama's JSON Schema field. */
  format?: unknown;
  /** OpenAI's (`{ type: 'json_schema', json_schema: { schema } }`, or `json_object` after a refusal). */
  response_format?: { type?: string; json_schema?: { schema?: unknown } };
}

async function sentBodies(port: number): Promise<SentBody[]> {
  const response = await fetch(`http://127.0.0.1:${port}/__fake/chat-requests`);
  const requests = (await response.json()) as Array<{ rawBody: string }>;
  return requests.map((r) => JSON.parse(r.rawBody) as SentBody);
}

/** The schema a request asked the model to answer to, whichever wire format carried it. */
function askedSchema(body: SentBody): unknown {
  return body.format ?? body.response_format?.json_schema?.schema ?? body.response_format?.type;
}

/**
 * A prompt that declares `output:` (the sample `/review-verdict`, which the sandbox workspace gets from the
 * repository's prompts/) picked from the `/` menu: the fake model's first answer fails the schema
 * (`[[verdict-fix]]` answers `"verdict": "maybe"`), Arbor sends the problems back as a correction turn (a
 * muted note in the chat), the second answer passes and shows as a card with its fields, Raw JSON and Copy JSON.
 */
describe('a structured answer in the chat', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);

  it('streams the invalid answer, shows the correction as a note, and the valid answer as a card; the retry carried the problems and the schema', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    const input = chat().input();
    const option = chat().frame.locator('[data-testid="prompt-option"]', { hasText: 'review-verdict' }).first();
    // The library loads in the background after the chat opens: type the trigger again until it has.
    await expect
      .poll(
        async () => {
          await input.fill('');
          await input.pressSequentially('/review-verdict');
          return option.isVisible();
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toBe(true);
    await option.click();
    const code = chat().frame.locator('[data-testid="prompt-param"][data-name="code"]');
    await code.waitFor({ timeout: 10_000 });
    await code.fill('function add(a, b) { return a - b; } [[verdict-fix]]');
    const before = (await sentBodies(session.env.fakeLlmPort)).length;
    await input.click();
    await input.press('Enter');

    // The correction turn shows as a compact note, not as a user bubble.
    const note = chat().byTestId('correction-note');
    await note.waitFor({ timeout: 60_000 });
    await chat().waitIdle();
    const noteText = (await note.textContent()) ?? '';
    expect(noteText).toContain('The answer did not match the schema: $.verdict:');
    expect(noteText).toContain('asked again (answer 2 of 3)');
    const correction = chat().frame.locator('[data-testid="message"][data-structured="correction"]');
    expect(await correction.count()).toBe(1);
    expect(await correction.locator('[data-testid="message-content"]').count()).toBe(0);

    // Two answers: the first kept as the model wrote it and marked, the second a card.
    const answers = chat().messagesOf('assistant');
    expect(await answers.count()).toBe(2);
    expect(await chat().textOf(answers.first())).toContain('"verdict": "maybe"');
    expect(await answers.first().locator('[data-testid="structured-invalid"]').textContent()).toBe('Answer 1 of 3 did not match the schema.');
    const card = answers.last().locator('[data-testid="structured-card"]');
    await card.waitFor({ timeout: 15_000 });
    const field = (name: string) => card.locator(`[data-testid="structured-field"][data-field="${name}"]`).first();
    expect(await field('verdict').locator('td').first().textContent()).toBe('changes_needed');
    expect(await field('summary').locator('td').first().textContent()).toBe('The subtraction should be an addition.');
    // The list of issues: one, its fields a table of their own.
    expect(await field('issues').locator('li').count()).toBe(1);
    expect(await field('issues').locator('[data-testid="structured-field"][data-field="severity"] td').textContent()).toBe('blocker');
    expect(await field('issues').locator('[data-testid="structured-field"][data-field="fix"] td').textContent()).toBe('Return a + b.');
    expect(await answers.last().locator('[data-testid="error"]').count()).toBe(0);

    // Raw JSON unfolds the value, pretty-printed.
    const raw = card.locator('[data-testid="structured-raw"]');
    await raw.locator('[data-testid="structured-raw-toggle"]').click();
    const json = (await raw.locator('pre code').textContent()) ?? '';
    expect(json).toContain('\n  "verdict": "changes_needed"');
    expect(JSON.parse(json)).toMatchObject({ verdict: 'changes_needed', issues: [{ file: 'selection', line: 1, severity: 'blocker' }] });
    expect(await card.locator('[data-testid="structured-copy"]').isVisible()).toBe(true);

    // Two requests, both asking for the schema; the second carried the first answer's problems.
    const sent = (await sentBodies(session.env.fakeLlmPort)).slice(before);
    expect(sent).toHaveLength(2);
    for (const body of sent) expect(askedSchema(body)).toBeTruthy();
    expect(askedSchema(sent[0])).toEqual(askedSchema(sent[1]));
    const lastUser = sent[1].messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '';
    expect(lastUser).toContain('Your answer does not match the required JSON Schema:');
    expect(lastUser).toContain('$.verdict');
    expect(sent[1].messages?.some((m) => m.role === 'assistant' && m.content.includes('"maybe"'))).toBe(true);
  });
});
