// Sources as the sandbox agent's stream carries them (base64 contents).
import type { PlacedSource } from '../config/sources.js';
import { UserError } from '../errors/index.js';

/**
 * Sources as the agent's stream carries them: contents base64-encoded, so their size on the stream
 * never grows with JSON escaping (a file of control characters would grow sixfold). Content that is
 * not well-formed UTF-16 (a lone surrogate) has no UTF-8 form: refused, never replaced.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function wireFiles(sources: PlacedSource[]) {
  return sources.map((source) => {
    // Binary sources are base64 already and go byte for byte (docs/operations.md, Sources).
    if (source.encoding === 'base64')
      return {
        area: source.area,
        path: source.path,
        content_b64: source.content,
        executable: source.executable,
      };
    if (LONE_SURROGATE.test(source.content)) {
      throw new UserError(
        'invalid_sources',
        `${source.absolutePath}: content holds a lone surrogate, which UTF-8 cannot encode`,
        { details: { field: source.absolutePath } },
      );
    }
    return {
      area: source.area,
      path: source.path,
      content_b64: Buffer.from(source.content, 'utf8').toString('base64'),
      executable: source.executable,
    };
  });
}
