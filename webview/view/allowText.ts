/**
 * The words of a tool card's Allow buttons. DOM-free, so it is tested in Node.
 */
import type { ToolGrantScope } from '../../src/shared/protocol';

/** The Allow buttons, widest grant last. */
export const ALLOWS: ReadonlyArray<{ scope: ToolGrantScope; text: string }> = [
  { scope: 'once', text: 'Allow once' },
  { scope: 'conversation', text: 'Allow in this conversation' },
  { scope: 'workspace', text: 'Allow in this workspace' },
  { scope: 'always', text: 'Always allow' },
];

/**
 * The text of an Allow button, naming what the grant covers when it is less than the whole tool (a read
 * outside the workspace covers one folder): "Allow reading /tmp/data/ in this conversation".
 */
export function allowText(scope: ToolGrantScope, covers: string | undefined): string {
  const plain = ALLOWS.find((a) => a.scope === scope)?.text ?? 'Allow';
  if (!covers || scope === 'once') return plain;
  return scope === 'always' ? `Always allow ${covers}` : `Allow ${covers} ${plain.slice('Allow '.length)}`;
}
