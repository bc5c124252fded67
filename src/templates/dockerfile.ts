import { UserError } from '../errors/index.js';
import { SANDBOX_ALIAS } from '../sandbox/image.js';

/** One instruction of a Dockerfile: its keyword, its arguments, and the line it starts on (1-based). */
export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/**
 * Splits a Dockerfile into instructions: comments and blank lines dropped, lines continued with the
 * escape character (`\`, or the one a `# escape=` directive names) joined. Heredocs are a BuildKit
 * feature the engine's classic builder, which hookbox uses, does not have.
 */
export function parseDockerfile(text: string): Instruction[] {
  const lines = text.split(/\r?\n/);
  let escape = '\\';
  // Parser directives: only at the very top, before any other comment or instruction.
  for (const line of lines) {
    const directive = /^#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$/.exec(line);
    if (!directive) break;
    if (directive[1]!.toLowerCase() === 'escape') escape = directive[2]!;
  }
  const instructions: Instruction[] = [];
  let current: { text: string; line: number } | undefined;
  lines.forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith('#') || (current === undefined && trimmed === '')) return;
    const continued = trimmed.endsWith(escape);
    const part = continued ? trimmed.slice(0, -escape.length).trimEnd() : trimmed;
    if (current === undefined) current = { text: part, line: index + 1 };
    else current.text += ` ${part}`;
    if (!continued) {
      const match = /^(\S+)\s*(.*)$/s.exec(current.text.trim());
      if (match)
        instructions.push({
          keyword: match[1]!.toUpperCase(),
          args: match[2]!.trim(),
          line: current.line,
        });
      current = undefined;
    }
  });
  if (current !== undefined) {
    const match = /^(\S+)\s*(.*)$/s.exec(current.text.trim());
    if (match)
      instructions.push({
        keyword: match[1]!.toUpperCase(),
        args: match[2]!.trim(),
        line: current.line,
      });
  }
  return instructions;
}

/** The image a FROM names (flags such as `--platform` and an `AS name` dropped). */
export function fromImage(instruction: Instruction): string {
  const words = instruction.args.split(/\s+/).filter((word) => !word.startsWith('--'));
  return words[0] ?? '';
}

/** True for the names by which a Dockerfile means the hookbox sandbox image. */
export function isSandboxAlias(image: string): boolean {
  return image === 'hookbox/sandbox' || image === SANDBOX_ALIAS;
}

/** What the check found: the final stage's base, and the notices to print (things neutralised). */
export interface DockerfileCheck {
  instructions: Instruction[];
  /** The final stage's FROM. */
  finalFrom: Instruction;
  /** True when the final stage starts from the hookbox sandbox image (the local path). */
  onSandbox: boolean;
  /** Things hookbox overrides rather than refuses, with their lines. */
  notices: string[];
}

/** Environment variables that would load code into the sandbox agent, which runs as root. */
const LOADER_VARIABLES = /^(LD_[A-Z_]*|PYTHONHOME|PYTHONPATH|PYTHONSTARTUP)$/;

/**
 * Checks a template's Dockerfile before anything is built, so that a mistake is reported with the
 * file and line (docs/templates.md, "What hookbox forbids"). Refused in the final stage: ENTRYPOINT
 * and CMD (the sandbox agent is the container's only process), VOLUME (an anonymous volume would be
 * a writable hole in the read-only root), HEALTHCHECK (the engine would run it as root beside the
 * agent), LABEL of hookbox's own `dev.hookbox.*` names, and ENV of loader variables. USER is
 * neutralised: hookbox resets it, the agent runs as root and tool code as the tool user anyway.
 */
export function checkDockerfile(text: string, file: string): DockerfileCheck {
  const instructions = parseDockerfile(text);
  const refuse = (instruction: Instruction | undefined, rule: string): never => {
    const where = instruction ? `${file}:${instruction.line}` : file;
    throw new UserError('invalid_template', `${where}: ${rule}`, {
      details: {
        field: instruction?.keyword ?? 'FROM',
        file,
        ...(instruction ? { line: instruction.line } : {}),
      },
    });
  };
  const firstOther = instructions.find((instruction) => instruction.keyword !== 'ARG');
  if (!firstOther || firstOther.keyword !== 'FROM')
    refuse(
      firstOther,
      `a template's Dockerfile must start with FROM (e.g. \`FROM ${SANDBOX_ALIAS}\`)${firstOther ? `, not ${firstOther.keyword}` : '; it has no FROM line'}`,
    );
  let finalIndex = 0;
  instructions.forEach((instruction, index) => {
    if (instruction.keyword === 'FROM') finalIndex = index;
  });
  const finalFrom = instructions[finalIndex]!;
  const image = fromImage(finalFrom);
  if (image === '') refuse(finalFrom, 'FROM names no image');
  if (image.startsWith('hookbox/sandbox:') && !isSandboxAlias(image))
    refuse(
      finalFrom,
      `FROM ${image}: name the sandbox image by its alias \`${SANDBOX_ALIAS}\`, not by a content tag (hookbox points the alias at its current image)`,
    );
  const notices: string[] = [];
  for (const instruction of instructions.slice(finalIndex + 1)) {
    const at = `${file}:${instruction.line}`;
    switch (instruction.keyword) {
      case 'ENTRYPOINT':
      case 'CMD':
        refuse(
          instruction,
          `${instruction.keyword} is not allowed in a template: the sandbox agent is the container's only process (tool code runs through it)`,
        );
        break;
      case 'VOLUME':
        refuse(
          instruction,
          `VOLUME is not allowed in a template: an anonymous volume would be writable in the read-only sandbox (${instruction.args})`,
        );
        break;
      case 'HEALTHCHECK':
        refuse(
          instruction,
          'HEALTHCHECK is not allowed in a template: the engine would run it as root beside the sandbox agent',
        );
        break;
      case 'LABEL':
        if (/(^|\s|")dev\.hookbox\./.test(instruction.args))
          refuse(instruction, "LABEL: names under dev.hookbox. are hookbox's own");
        break;
      case 'ENV': {
        const names = envNames(instruction.args);
        const loader = names.find((name) => LOADER_VARIABLES.test(name));
        if (loader)
          refuse(
            instruction,
            `ENV ${loader} is not allowed in a template: it would load code into the sandbox agent, which runs as root`,
          );
        break;
      }
      case 'USER':
        notices.push(
          `${at}: USER ${instruction.args} is reset: the sandbox agent runs as root, tool code as uid 1000 and hooks as uid 1001 whatever the image says`,
        );
        break;
      case 'ONBUILD':
        refuse(instruction, 'ONBUILD is not allowed in a template');
        break;
      default:
        break;
    }
  }
  return { instructions, finalFrom, onSandbox: isSandboxAlias(image), notices };
}

/** The variable names an ENV instruction sets (`ENV A=1 B=2` or the old `ENV A 1`). */
function envNames(args: string): string[] {
  if (!/^[^\s=]+=/.test(args)) return [args.split(/\s+/)[0] ?? ''];
  return [...args.matchAll(/(?:^|\s)([^\s=]+)=/g)].map((match) => match[1]!);
}

/**
 * The Dockerfile as sent to the engine: the final FROM's alias replaced, on its own line, by the
 * exact content tag, so that what is built on is exactly what the template records (another
 * checkout on the same engine may move the alias meanwhile).
 */
export function pinSandboxFrom(text: string, check: DockerfileCheck, sandboxTag: string): string {
  if (!check.onSandbox) return text;
  const lines = text.split('\n');
  const image = fromImage(check.finalFrom);
  // A FROM continued over lines has its image on one of them.
  let index = check.finalFrom.line - 1;
  while (index < lines.length - 1 && !lines[index]!.includes(image)) index++;
  lines[index] = lines[index]!.replace(image, sandboxTag);
  return lines.join('\n');
}
