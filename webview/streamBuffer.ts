/**
 * Collects the deltas of a streaming answer and hands the accumulated text to the view at most once
 * per animation frame, however many deltas arrive in between: at 100 tokens per second the view
 * renders Markdown ~60 times a second at most, never once per token.
 */

/** The streamed answer so far. */
export interface StreamSnapshot {
  text: string;
  thinking: string;
}

/** Accumulates one stream's text and flushes it once per frame. */
export class StreamBuffer {
  private text = '';
  private thinking = '';
  private dirty = false;
  private scheduled = false;
  private generation = 0;

  constructor(private readonly onFlush: (snapshot: StreamSnapshot) => void) {}

  /** Adds a delta; the view hears about it on the next frame. */
  push(delta: string, thinkingDelta?: string): void {
    this.text += delta;
    this.thinking += thinkingDelta ?? '';
    this.dirty = true;
    if (!this.scheduled) {
      this.scheduled = true;
      const generation = this.generation;
      requestAnimationFrame(() => {
        if (generation === this.generation) {
          this.scheduled = false;
          this.flush();
        }
      });
    }
  }

  /** Hands pending text to the view now (the stream ended), if there is any. */
  flush(): void {
    if (!this.dirty) {
      return;
    }
    this.dirty = false;
    this.onFlush({ text: this.text, thinking: this.thinking });
  }

  /** Forgets the text and any scheduled flush, for the next stream. */
  reset(): void {
    this.generation += 1;
    this.text = '';
    this.thinking = '';
    this.dirty = false;
    this.scheduled = false;
  }
}
