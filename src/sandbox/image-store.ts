// A backend's images: the part that builds and names them (docs/kubernetes.md, "What each backend
// offers"). Docker offers it; the Kubernetes backend does not (its nodes pull from a registry).

/** An image as the engine describes it: what a template check needs from its configuration. */
export interface ImageSummary {
  id: string;
  /** Its repo:tag names. */
  tags: string[];
  labels: Record<string, string>;
  /** The `USER` it runs as ('' for root). */
  user: string;
  entrypoint: string[];
  cmd: string[];
  /** Paths it declares as `VOLUME`. */
  volumes: string[];
  /** `NAME=value` pairs of its `ENV`. */
  env: string[];
  /** Whether it declares a `HEALTHCHECK` (which the engine would run as root in the sandbox). */
  healthcheck: boolean;
  /** Size in bytes. */
  sizeBytes: number;
  created: string;
}

/** How an image is built beyond its context, tag, build arguments and labels. */
export interface BuildImageOptions {
  /** The Dockerfile's path in the context. @default `Dockerfile` */
  dockerfile?: string;
  /** The build's output, line by line. */
  onOutput?: (line: string) => void;
}

/** Images on an engine this controller can build on and ask: `hookbox image build`, templates. */
export interface ImageStore {
  /** The image's labels, or undefined when there is no such image. */
  imageLabels(tag: string): Promise<Record<string, string> | undefined>;
  /**
   * Builds an image from a tar context. `onOutput` gets the build's output line by line (the
   * `Step N/M : …` lines say which instruction ran; a failed build's message is the error).
   */
  buildImage(
    context: Buffer,
    tag: string,
    buildArgs: Record<string, string>,
    labels: Record<string, string>,
    options?: BuildImageOptions,
  ): Promise<void>;
  /** The image's configuration, or undefined when there is no such image. */
  inspectImage(tag: string): Promise<ImageSummary | undefined>;
  /** Images with these labels. */
  listImages(labelFilter: string[]): Promise<ImageSummary[]>;
  /** Gives an image another name (`repo:tag`), moving the name if it was on another image. */
  tagImage(source: string, target: string): Promise<void>;
  /** Removes an image name (the image goes with its last name); one that is gone is fine. */
  removeImage(tag: string): Promise<void>;
}
