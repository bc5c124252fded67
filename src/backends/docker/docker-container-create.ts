// The Docker create-container request of a sandbox container spec: hardened host settings and mounts.
import type Docker from 'dockerode';
import type { SandboxContainerSpec } from '../../sandbox/container-client.js';

export function containerCreateOptions(spec: SandboxContainerSpec): Docker.ContainerCreateOptions {
  return {
    name: spec.name,
    Image: spec.image,
    Labels: spec.labels,
    Hostname: 'sandbox',
    User: spec.user ?? '0:0',
    ...(spec.env ? { Env: spec.env } : {}),
    ...(spec.entrypoint ? { Entrypoint: spec.entrypoint, Cmd: [] } : {}),
    Tty: false,
    OpenStdin: true,
    StdinOnce: false,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    NetworkDisabled: spec.network === 'none',
    HostConfig: {
      ReadonlyRootfs: true,
      ...(spec.runtime ? { Runtime: spec.runtime } : {}),
      CapDrop: ['ALL'],
      CapAdd: spec.capabilities,
      SecurityOpt: ['no-new-privileges:true'],
      NetworkMode: spec.network,
      IpcMode: 'private',
      Memory: spec.memoryMb * 1024 * 1024,
      MemorySwap: spec.memoryMb * 1024 * 1024,
      NanoCpus: Math.round(spec.cpus * 1e9),
      PidsLimit: spec.pidsLimit,
      ...(spec.sysctls ? { Sysctls: spec.sysctls } : {}),
      LogConfig: { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '1' } },
      Mounts: [
        ...spec.mounts.map((mount) => ({
          Type: 'volume' as const,
          Source: mount.volume,
          Target: mount.target,
          ReadOnly: mount.readOnly,
        })),
        ...(spec.bindMounts ?? []).map((mount) => ({
          Type: 'bind' as const,
          Source: mount.source,
          Target: mount.target,
          ReadOnly: mount.readOnly,
        })),
        ...spec.readOnlyTmpfs.map((target) => ({
          Type: 'tmpfs' as const,
          Source: '',
          Target: target,
          ReadOnly: true,
          TmpfsOptions: { SizeBytes: 4096, Mode: 0o755 },
        })),
        ...spec.writableTmpfs.map((tmpfs) => ({
          Type: 'tmpfs' as const,
          Source: '',
          Target: tmpfs.target,
          TmpfsOptions: { SizeBytes: tmpfs.sizeMb * 1024 * 1024, Mode: 0o1777 },
        })),
        ...(spec.rootOnlyTmpfs ?? []).map((tmpfs) => ({
          Type: 'tmpfs' as const,
          Source: '',
          Target: tmpfs.target,
          TmpfsOptions: { SizeBytes: tmpfs.sizeMb * 1024 * 1024, Mode: 0o700 },
        })),
      ],
    },
  };
}
