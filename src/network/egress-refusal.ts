// The egress proxy's own answers: refusals and upstream failures, on a raw socket or a response.
import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { EgressRecord } from '../record/egress-record.js';
import type { Recorder } from './egress-recorder.js';

/** Set on every answer the proxy itself gives (refusals, failures), so a client can tell them from the upstream's. */
export const RULE_HEADER = 'x-hookbox-egress-rule';

/** Why the proxy will not (403, 400) or could not (502) carry a request, naming the rule. */
export interface Refusal {
  status: number;
  rule: string;
  detail: string;
}

/** Answer text of a refusal: names the target, the rule and why. */
function refusalText(target: string, refusal: Refusal): string {
  const what = refusal.status === 502 ? 'could not reach' : 'refused';
  return `hookbox egress proxy ${what} ${target}: rule "${refusal.rule}": ${refusal.detail}\n`;
}

function reasonPhrase(refusal: Refusal): string {
  return refusal.status === 403
    ? `Forbidden by hookbox egress rule ${refusal.rule}`
    : refusal.status === 400
      ? `Bad Request (hookbox egress rule ${refusal.rule})`
      : `Bad Gateway (hookbox egress: ${refusal.rule})`;
}

/** The record's fields for a refusal: a 502 is a failure, anything else a refusal. */
function refusalFields(refusal: Refusal): Partial<EgressRecord> {
  return {
    decision: refusal.status === 502 ? 'failed' : 'refused',
    rule: refusal.rule,
    detail: refusal.detail,
    status: refusal.status,
  };
}

/** Answers a refusal on a raw socket (CONNECT, upgrades, malformed requests) and records it. */
export function refuseSocket(
  socket: Duplex,
  recorder: Recorder,
  target: string,
  refusal: Refusal,
): void {
  const body = refusalText(target, refusal);
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${refusal.status} ${reasonPhrase(refusal)}\r\n` +
        `Content-Type: text/plain; charset=utf-8\r\n` +
        `${RULE_HEADER}: ${refusal.rule}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.on('error', () => {});
  setTimeout(() => socket.destroy(), 1000).unref();
  recorder.finish(refusalFields(refusal));
}

/** Answers a refusal on an HTTP response (or cuts it when the upstream's head is already sent) and records it. */
export function refuseResponse(
  response: ServerResponse,
  recorder: Recorder,
  target: string,
  refusal: Refusal,
  fields: Partial<EgressRecord> = {},
): void {
  const body = refusalText(target, refusal);
  if (!response.headersSent) {
    response.writeHead(refusal.status, reasonPhrase(refusal), {
      'content-type': 'text/plain; charset=utf-8',
      [RULE_HEADER]: refusal.rule,
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(body);
  } else {
    response.destroy();
  }
  recorder.finish({ ...fields, ...refusalFields(refusal) });
}
