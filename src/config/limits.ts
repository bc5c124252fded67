/** Documented limits on what a request may send (README "Limits"). */
export const SOURCE_LIMITS = {
  /** At most this many sources per request. */
  maxCount: 1000,
  /** One source's content, in bytes (UTF-8). */
  maxSourceBytes: 5 * 1024 * 1024,
  /** All sources of one request together, in bytes. */
  maxTotalBytes: 20 * 1024 * 1024,
  /** A target path, in bytes. */
  maxTargetBytes: 1024,
  /** One segment (file or folder name) of a target, in bytes. */
  maxSegmentBytes: 255,
} as const;
