// Where `--runtime runsc` is offered, its help says what runsc gives up (docs/gvisor.md, "What you
// give up"): under gVisor a process flood or a memory bomb ends the whole environment.
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

describe('--runtime help', () => {
  it.each(['call', 'test', 'serve', 'mcp'])(
    'hookbox %s --help says what runsc gives up',
    async (command) => {
      let out = '';
      const io = {
        stdout: (text: string) => (out += text),
        stderr: (text: string) => (out += text),
        isTty: false,
      };
      await main([command, '--help'], io);
      const help = out.replace(/\s+/g, ' ');
      expect(help).toContain('--runtime <name>');
      expect(help).toContain(
        'under runsc a process flood or a memory bomb ends the whole environment',
      );
      expect(help).toContain('docs/gvisor.md');
    },
  );
});
