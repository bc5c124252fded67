import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InlineSource } from '../src/config/sources.js';
import { packageRoot } from '../src/paths.js';

/** The seed gate of the quick-start demo (examples/security-gate), as inline sources. */
export function seedGateSources(): InlineSource[] {
  const seed = join(packageRoot(), 'examples', 'security-gate', '.agents');
  return [
    {
      type: 'inline',
      target: '.agents/hooks.json',
      content: readFileSync(join(seed, 'hooks.json'), 'utf8'),
    },
    {
      type: 'inline',
      target: '.agents/hooks-scripts/gate.py',
      content: readFileSync(join(seed, 'hooks-scripts', 'gate.py'), 'utf8'),
    },
  ];
}

/** The seed gate's script (examples/security-gate/.agents/hooks-scripts/gate.py). */
export function seedGateScript(): string {
  return seedGateSources()[1]!.content;
}

/** The seed gate with the one line docs/gates.md advises: leave at once once the answer is out. */
export function withExitLine(seed: string): string {
  return `${seed.trimEnd()}\nimport os\nsys.stdout.flush()\nos._exit(0)\n`;
}
