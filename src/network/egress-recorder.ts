// Records one connection or request through the egress proxy, once, with its duration.
import type { EgressRecord } from '../record/egress-record.js';

export class Recorder {
  private done = false;
  private readonly started = performance.now();
  readonly record: EgressRecord;

  constructor(
    private readonly emit: (record: EgressRecord) => void,
    base: Pick<EgressRecord, 'environment_id' | 'form' | 'method' | 'target'>,
  ) {
    this.record = {
      ...base,
      decision: 'allowed',
      rule: '',
      bytes_out: 0,
      bytes_in: 0,
      duration_ms: 0,
    };
  }

  finish(fields: Partial<EgressRecord> = {}): void {
    if (this.done) return;
    this.done = true;
    Object.assign(this.record, fields);
    this.record.duration_ms = Math.round((performance.now() - this.started) * 10) / 10;
    this.emit(this.record);
  }
}
