import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TourServer } from './tourServer';

const LAUNCHER = path.resolve(__dirname, '../../../scripts/tourServer.mjs');

/** The launcher `npm start` names, run for real: the fake model server on a free port, stopped by `dispose`. */
describe('TourServer', () => {
  let tour: TourServer | undefined;
  afterEach(() => tour?.dispose());

  it('starts the fake model server once, answers with its models, and stops with dispose', async () => {
    tour = new TourServer(LAUNCHER);
    const address = await tour.start();
    expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await tour.start()).toBe(address);
    const tags = (await (await fetch(`${address}/api/tags`)).json()) as { models: Array<{ name: string }> };
    expect(tags.models.map((m) => m.name)).toContain('arbor-test-model:latest');
    tour.dispose();
    await expect.poll(() => fetch(`${address}/api/tags`).then(() => 'up', () => 'down'), { timeout: 10_000 }).toBe('down');
  });

  it('says why when the launcher fails', async () => {
    tour = new TourServer(path.resolve(__dirname, '../../../package.json'));
    await expect(tour.start()).rejects.toThrow(/The fake model server did not start: it exited/);
  });
});
