/**
 * A generated code base for the retrieval benchmark: 10k TypeScript-like files, about 100 MB,
 * deterministic (seeded PRNG), written once into bench/.data and reused by later runs.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

const NOUNS = (
  'token buffer stream cache entry request response user account session config render view model index query ' +
  'result error retry timer queue worker task event handler route file reader writer socket client server message ' +
  'channel policy permission role group schema field value record table column row batch chunk image pixel color ' +
  'theme layout node tree graph edge vertex matrix vector hash digest signature archive upload download metric ' +
  'counter gauge trace span deploy build compile format fixture order invoice payment refund price discount cart ' +
  'product catalog inventory shipment address email template locale currency date zone calendar schedule job lock ' +
  'mutex semaphore pool connection transaction commit rollback migration seed backup snapshot shard replica leader ' +
  'follower vote term peer gossip heartbeat plugin widget dialog editor cursor selection keyboard shortcut command'
).split(' ');

const VERBS = (
  'get set create update delete find list build parse validate compute resolve fetch apply merge split flush open ' +
  'close start stop handle emit register normalize encode decode verify sign compress load save render sync'
).split(' ');

const TYPES = ['string', 'number', 'boolean', 'Uint8Array', 'Promise<void>', 'Record<string, unknown>', 'unknown[]'];

const ENGLISH = (
  'the value is checked before it is stored so that a later read never sees a partial update and the caller can ' +
  'retry safely when the connection drops or the remote side answers with an error we keep the order stable'
).split(' ');

/** mulberry32: small, fast, good enough for generating text. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function cap(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

/** The identifier vocabulary: verb+Noun+Noun functions and Noun+Noun types. */
export function vocabulary(seed = 7, size = 6000): { functions: string[]; types: string[] } {
  const r = prng(seed);
  const pick = <T>(a: T[]) => a[Math.floor(r() * a.length)];
  const functions = new Set<string>();
  const types = new Set<string>();
  while (functions.size < size) functions.add(`${pick(VERBS)}${cap(pick(NOUNS))}${r() < 0.6 ? cap(pick(NOUNS)) : ''}`);
  while (types.size < size / 4) types.add(`${cap(pick(NOUNS))}${cap(pick(NOUNS))}${r() < 0.3 ? 'Options' : ''}`);
  return { functions: [...functions], types: [...types] };
}

/** Natural-language-ish queries over the vocabulary, as a person would type them. */
export function generatedQueries(count: number, seed = 99): string[] {
  const r = prng(seed);
  const { functions, types } = vocabulary();
  const pick = <T>(a: T[]) => a[Math.floor(r() * a.length)];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const kind = r();
    if (kind < 0.3) out.push(pick(functions));
    else if (kind < 0.6) out.push(`where do we ${pick(VERBS)} the ${pick(NOUNS)} ${pick(NOUNS)}`);
    else if (kind < 0.8) out.push(`${pick(types)} ${pick(functions)}`);
    else out.push(`how is ${pick(NOUNS)} ${pick(VERBS)} handled when the ${pick(NOUNS)} fails`);
  }
  return out;
}

function fileText(r: () => number, functions: string[], types: string[], targetBytes: number): string {
  // Zipf-like choice: low indexes far more often, like real code reuses a few names a lot.
  const zipf = <T>(a: T[]) => a[Math.floor(a.length * r() ** 3)];
  const local = Array.from({ length: 12 }, () => functions[Math.floor(r() * functions.length)]);
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; i < 6; i++) {
    const line = `import { ${zipf(functions)}, ${zipf(types)} } from '../${NOUNS[Math.floor(r() * NOUNS.length)]}';`;
    parts.push(line);
    size += line.length + 1;
  }
  parts.push('');
  while (size < targetBytes) {
    const name = r() < 0.5 ? local[Math.floor(r() * local.length)] : zipf(functions);
    const block: string[] = [];
    const comment = Array.from({ length: 6 + Math.floor(r() * 10) }, () => ENGLISH[Math.floor(r() * ENGLISH.length)]).join(' ');
    block.push(`/** ${cap(comment)}. */`);
    if (r() < 0.15) {
      const t = zipf(types);
      block.push(`export class ${t}Service {`, `  private readonly ${local[0]}Cache = new Map<string, ${t}>();`, '');
      for (let m = 0; m < 3; m++) {
        block.push(`  ${local[Math.floor(r() * local.length)]}(input: ${zipf(types)}): ${TYPES[Math.floor(r() * TYPES.length)]} {`);
        block.push(`    return this.${local[0]}Cache.get(input.${zipf(functions)}) ?? ${zipf(functions)}(input);`, '  }', '');
      }
      block.push('}');
    } else {
      block.push(`export function ${name}(${local[1]}: ${zipf(types)}, limit: number): ${TYPES[Math.floor(r() * TYPES.length)]} {`);
      const body = 4 + Math.floor(r() * 30);
      for (let l = 0; l < body; l++) {
        const k = r();
        if (k < 0.35) block.push(`  const ${zipf(functions)}Result = ${zipf(functions)}(${local[1]}, ${Math.floor(r() * 1000)});`);
        else if (k < 0.55) block.push(`  if (${local[1]}.${zipf(functions)}() > limit) {`, `    throw new ${zipf(types)}Error('${ENGLISH[Math.floor(r() * ENGLISH.length)]} ${ENGLISH[Math.floor(r() * ENGLISH.length)]}');`, '  }');
        else if (k < 0.75) block.push(`  await ${local[Math.floor(r() * local.length)]}(${zipf(functions)}, { ${zipf(types).toLowerCase()}: limit });`);
        else if (k < 0.85) block.push(`  // ${ENGLISH.slice(Math.floor(r() * 20), 30).join(' ')}`);
        else block.push(`  for (const item of ${local[1]}.${zipf(functions)}()) ${zipf(functions)}(item);`);
      }
      block.push(`  return ${zipf(functions)}(${local[1]});`, '}');
    }
    block.push('');
    const text = block.join('\n');
    parts.push(text);
    size += text.length + 1;
  }
  return parts.join('\n');
}

/**
 * Writes the corpus into `dir` unless a marker says it is already there; returns the folder.
 * 100 folders of 100 files, sizes spread from 2 KB to 18 KB (10 KB on average).
 */
export async function ensureCorpus(dir: string, files = 10_000, seed = 42): Promise<string> {
  const marker = `${dir}.complete`;
  const want = `files=${files} seed=${seed} v2`;
  try {
    if ((await fs.readFile(marker, 'utf8')) === want) return dir;
  } catch {
    // Not generated yet.
  }
  await fs.rm(dir, { recursive: true, force: true });
  const r = prng(seed);
  const { functions, types } = vocabulary();
  const perDir = 100;
  for (let d = 0; d < files / perDir; d++) {
    const area = `${NOUNS[d % NOUNS.length]}${d >= NOUNS.length ? d : ''}`;
    const folder = path.join(dir, 'src', area);
    await fs.mkdir(folder, { recursive: true });
    const writes: Array<Promise<void>> = [];
    for (let f = 0; f < perDir; f++) {
      const name = `${NOUNS[Math.floor(r() * NOUNS.length)]}${cap(NOUNS[Math.floor(r() * NOUNS.length)])}${f}.ts`;
      writes.push(fs.writeFile(path.join(folder, name), fileText(r, functions, types, 2000 + Math.floor(r() * 16000))));
    }
    await Promise.all(writes);
  }
  await fs.writeFile(marker, want);
  return dir;
}
