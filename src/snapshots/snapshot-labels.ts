// The labels of a snapshot's volume: managed, its id, its controller (src/sandbox/labels.ts).
import {
  LABEL_CONTROLLER,
  LABEL_CONTROLLER_PID,
  LABEL_CONTROLLER_PID_NAMESPACE,
  LABEL_MANAGED,
  LABEL_ROLE,
  LABEL_SNAPSHOT,
  LABEL_STATE_FILE,
  pidNamespace,
  type ControllerIdentity,
} from '../sandbox/labels.js';

export function snapshotVolumeLabels(
  snapshotId: string,
  controller: ControllerIdentity,
): Record<string, string> {
  return {
    ...(controller.stateFile ? { [LABEL_STATE_FILE]: controller.stateFile } : {}),
    [LABEL_MANAGED]: 'true',
    [LABEL_SNAPSHOT]: snapshotId,
    [LABEL_ROLE]: 'snapshot',
    [LABEL_CONTROLLER]: controller.id,
    [LABEL_CONTROLLER_PID]: String(controller.pid),
    [LABEL_CONTROLLER_PID_NAMESPACE]: pidNamespace(),
  };
}
