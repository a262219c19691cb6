import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOUR_SERVER_ENV, baseUrlProblem, firstRunActions, ollamaSteps, tourServerAddress, tourServerScript } from './firstRun';
import { useTourScript } from '../../../test/fixtures/tourScript';

describe('the first-run choice', () => {
  const tourScript = useTourScript(TOUR_SERVER_ENV);

  it('offers the tour only when the launcher npm start names exists, as an absolute path', async () => {
    const script = await tourScript();
    expect(tourServerScript({ [TOUR_SERVER_ENV]: script })).toBe(script);
    expect(tourServerScript({})).toBeUndefined();
    expect(tourServerScript({ [TOUR_SERVER_ENV]: 'scripts/tourServer.mjs' })).toBeUndefined();
    expect(tourServerScript({ [TOUR_SERVER_ENV]: path.join(path.dirname(script), 'gone.mjs') })).toBeUndefined();
    expect(firstRunActions(true).map((a) => a.command)).toEqual(['arbor.firstRun.startTour', 'arbor.firstRun.useOllama', 'arbor.firstRun.useOpenAICompatible']);
    expect(firstRunActions(false).map((a) => a.command)).toEqual(['arbor.firstRun.useOllama', 'arbor.firstRun.useOpenAICompatible']);

  });

  it('checks the base URL a person types, saying what is wrong', () => {
    expect(baseUrlProblem('http://127.0.0.1:8000/v1')).toBeUndefined();
    expect(baseUrlProblem(' https://api.openai.com/v1 ')).toBeUndefined();
    expect(baseUrlProblem('')).toMatch(/base URL/);
    expect(baseUrlProblem('127.0.0.1:8000')).toMatch(/not a URL/);
    expect(baseUrlProblem('localhost:8000')).toMatch(/http:\/\/ or https:\/\//);
    expect(baseUrlProblem('localhost 8000')).toMatch(/not a URL/);
    expect(baseUrlProblem('ftp://example.com/v1')).toMatch(/http:\/\/ or https:\/\//);
    expect(baseUrlProblem('http://127.0.0.1:8000/v1?x=1')).toMatch(/no \?query/);
  });

  it("reads the launcher's address line and nothing else", () => {
    expect(tourServerAddress('listening on http://127.0.0.1:40123')).toBe('http://127.0.0.1:40123');
    expect(tourServerAddress('listening on http://0.0.0.0:40123')).toBeUndefined();
    expect(tourServerAddress('compiling…')).toBeUndefined();
  });

  it('tells how to install and start Ollama, with the model to pull', () => {
    const steps = ollamaSteps('http://127.0.0.1:11434', 'llama3.2');
    expect(steps).toContain('https://ollama.com/download');
    expect(steps).toContain('ollama serve');
    expect(steps).toContain('ollama pull llama3.2');
    expect(steps).toContain('Retry');
  });
});
