/**
 * What Apply does with a code block of an answer, before anything is shown: which file the block is
 * meant for (a path in its fence, a first-line comment naming the file, the file the question was
 * about, else the active editor), whether the block is the whole new file or a fragment the model
 * must merge, and the hunks of the proposed change, each of which can be taken or left. Pure, so it
 * is tested without VS Code.
 */
import { applyPatch, structuredPatch, type StructuredPatchHunk } from 'diff';

/** A fenced block of a Markdown text: its info string (`ts src/cart.ts`) and its code. */
export interface FencedBlock {
  info: string;
  code: string;
}

/** The fenced blocks of `markdown`, in order (``` and ~~~ fences, as CommonMark opens and closes them). */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[i]);
    if (!open || (open[1][0] === '`' && open[2].includes('`'))) continue;
    const fence = open[1];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).exec(lines[j]);
      if (close) break;
      body.push(lines[j]);
    }
    blocks.push({ info: open[2].trim(), code: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** The info string of the block of `markdown` whose code is `code` ('' when none matches). */
export function fenceInfoOf(markdown: string, code: string): string {
  const wanted = code.replace(/\r?\n$/, '');
  return fencedBlocks(markdown).find((b) => b.code === wanted)?.info ?? '';
}

const PATH_LIKE = /^[\w@~.\-/\\]+\.[\w-]+$|^[\w@~.\-]+\/[\w@~.\-/\\]+$/;

/**
 * Paths a block names for itself: words of its fence's info string after the language
 * (`ts src/cart.ts`, `title="src/cart.ts"`, `path=src/cart.ts`, `ts:src/cart.ts`), then a first-line
 * comment that is only a path (`// src/cart.ts`, `# file: app.py`, `<!-- index.html -->`).
 */
export function namedPaths(info: string, code: string): string[] {
  const found: string[] = [];
  const add = (p: string | undefined) => {
    const path = p?.trim().replace(/^["']|["']$/g, '');
    if (path && PATH_LIKE.test(path) && !found.includes(path)) found.push(path);
  };
  const words = info.split(/\s+/).filter(Boolean);
  words.forEach((word, i) => {
    const keyed = /^(?:title|file|path|filename)=(.+)$/.exec(word);
    if (keyed) return add(keyed[1]);
    const colon = i === 0 ? /^[\w+#-]+:(.+)$/.exec(word) : null;
    if (colon) return add(colon[1]);
    if (i > 0) add(word);
  });
  const first = code.split(/\r?\n/, 1)[0]?.trim() ?? '';
  const comment = /^(?:\/\/|#|--|;|\/\*|<!--)\s*(?:file(?:name)?:\s*)?(\S+?)\s*(?:\*\/|-->)?$/i.exec(first);
  if (comment) add(comment[1]);
  return found;
}

/** Lines that stand for code left out (`// ...`, `# ... existing code ...`): the block is a fragment. */
const ELISION = /^\s*(?:\/\/|#|--|\/\*|<!--|\*)?\s*(?:\.\.\.|…)(?:.*(?:existing|unchanged|rest|same|code).*)?\s*(?:\*\/|-->)?\s*$|^\s*(?:\/\/|#|\/\*)\s*(?:\.\.\.\s*)?(?:existing|unchanged|rest of)\b.*$/i;

/**
 * Whether a block is a fragment of `fileText` rather than the whole new file: it marks code left out,
 * or it is much shorter than the file (under 60% of its lines, for files of 10 lines or more).
 */
export function isFragment(code: string, fileText: string): boolean {
  if (!fileText.trim()) return false;
  const codeLines = code.split(/\r?\n/);
  if (codeLines.some((line) => ELISION.test(line))) return true;
  const fileLines = fileText.split(/\r?\n/).length;
  return fileLines >= 10 && codeLines.length < fileLines * 0.6;
}

/** A block's first-line comment naming its file is not part of the file: drop it when it named the target. */
export function withoutPathComment(code: string, target: string): string {
  const [first, ...rest] = code.split('\n');
  return namedPaths('', first).some((p) => target.endsWith(p.replace(/^\.\//, ''))) ? rest.join('\n') : code;
}

/** The text a merge answer holds: the file without a fence around it. */
export function unfence(answer: string): string {
  if (!/^(`{3,}|~{3,})/.test(answer.trim())) return answer;
  const blocks = fencedBlocks(answer.trim());
  return blocks.length > 0 ? `${blocks[0].code}\n` : answer;
}

/** The messages that ask a model to merge a fragment into a file, answered with the whole new file. */
export function mergeRequest(path: string, fileText: string, fragment: string): Array<{ role: 'system' | 'user'; content: string }> {
  return [
    {
      role: 'system',
      content:
        'You apply a code change to a file. Answer with the complete new content of the file and nothing else: no explanation, no Markdown fence. ' +
        'Keep every part of the file the change does not touch exactly as it is; where the change marks code left out ("...", "existing code"), keep the file\'s code there.',
    },
    { role: 'user', content: `The file ${path}:\n\`\`\`\n${fileText}\n\`\`\`\n\nThe change to apply:\n\`\`\`\n${fragment}\n\`\`\`` },
  ];
}

/** One hunk of a proposed change, as the user picks it. */
export interface ChangeHunk {
  index: number;
  /** `@@ -12,3 +12,5 @@` */
  header: string;
  added: number;
  removed: number;
  /** The first added line (else the first removed one), to tell hunks apart. */
  preview: string;
}

/** The hunks of the change from `before` to `after`, with 3 lines of context. */
export function changeHunks(before: string, after: string): { hunks: ChangeHunk[]; raw: StructuredPatchHunk[] } {
  const patch = structuredPatch('a', 'b', before, after, '', '', { context: 3 });
  const hunks = patch.hunks.map((h, index) => {
    const changed = h.lines.filter((l) => l.startsWith('+') || l.startsWith('-'));
    return {
      index,
      header: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`,
      added: changed.filter((l) => l.startsWith('+')).length,
      removed: changed.filter((l) => l.startsWith('-')).length,
      preview: (changed.find((l) => l.startsWith('+')) ?? changed[0] ?? '').slice(1).trim().slice(0, 80),
    };
  });
  return { hunks, raw: patch.hunks };
}

/** `before` with only the hunks at `keep` applied (all of them gives `after`). */
export function applyHunks(before: string, after: string, keep: ReadonlySet<number>): string {
  const patch = structuredPatch('a', 'b', before, after, '', '', { context: 3 });
  const kept = { ...patch, hunks: patch.hunks.filter((_, i) => keep.has(i)) };
  const result = applyPatch(before, kept);
  if (result === false) throw new Error('The chosen parts of the change no longer fit the file; apply the whole change or ask again.');
  return result;
}
