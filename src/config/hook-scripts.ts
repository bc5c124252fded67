/** A script a hook command names under /.agents. */
export interface NamedScript {
  /** Its absolute path in the sandbox, e.g. `/.agents/hooks-scripts/gate.py`. */
  inSandbox: string;
  /** Its path inside /.agents, e.g. `hooks-scripts/gate.py`. */
  relative: string;
  /** Whether it is the command's first word (run directly, so it must be executable). */
  first: boolean;
}

/**
 * Script paths a command names under /.agents: absolute, or relative from the hooks' cwd
 * /workspace, whose `.agents` is the read-only mirror of /.agents (docs/gates.md).
 */
export function scriptsNamed(command: string): NamedScript[] {
  const tokens = command.split(/\s+/).filter(Boolean);
  const out: NamedScript[] = [];
  tokens.forEach((token, index) => {
    const clean = token.replace(/^['"]|['"]$/g, '');
    const match = /^(?:\/|\.\/)?\.agents\/(.+)$/.exec(clean);
    if (match)
      out.push({ inSandbox: `/.agents/${match[1]}`, relative: match[1]!, first: index === 0 });
  });
  return out;
}
