// The fake model server for a tour of Arbor, started on demand by the extension when `npm start` runs it
// (scripts/start.mjs passes this file's path as ARBOR_TOUR_SERVER; see src/host/onboarding/tourServer.ts). It
// answers in the Ollama and OpenAI wire formats on a free port of 127.0.0.1, prints
// `listening on http://127.0.0.1:PORT`, and exits when its stdin closes (the extension went away) or on
// SIGTERM. The server is test/fixtures/fakeLlmServer.ts, loaded through tsx.
import { tsImport } from 'tsx/esm/api';

const { FakeLlmServer } = await tsImport('../test/fixtures/fakeLlmServer.ts', import.meta.url);
const server = new FakeLlmServer({ port: 0 });
const url = await server.start();
process.stdout.write(`listening on ${url}\n`);

const shutdown = () => void server.stop().then(() => process.exit(0));
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.stdin.on('end', shutdown);
process.stdin.on('error', shutdown);
process.stdin.resume();
