import { UserError } from '../../errors/index.js';

// Kubernetes refuses object names that are not DNS names; checking them here turns a late API
// error (or a manifest kubectl rejects) into a message naming the flag (docs/kubernetes.md).

/** A namespace: a DNS-1123 label (at most 63 of a-z, 0-9 and "-", starting and ending alphanumeric). */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** A Secret or RuntimeClass: a DNS-1123 subdomain (labels joined by ".", at most 253 characters). */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `value` unchanged when it is a valid namespace, else a UserError naming `field`. */
export function checkNamespace(field: string, value: string): string {
  if (!DNS_LABEL.test(value))
    throw new UserError(
      'invalid_argument',
      `${field}: a namespace is 1 to 63 of a-z, 0-9 and "-", starting and ending with a letter or digit (got ${JSON.stringify(value)})`,
      { details: { field } },
    );
  return value;
}

/** `value` unchanged when it is a valid object name (Secret, RuntimeClass), else a UserError naming `field`. */
export function checkObjectName(field: string, value: string): string {
  if (value.length > 253 || !DNS_SUBDOMAIN.test(value))
    throw new UserError(
      'invalid_argument',
      `${field}: a Kubernetes name is at most 253 of a-z, 0-9, "-" and ".", each part starting and ending with a letter or digit (got ${JSON.stringify(value)})`,
      { details: { field } },
    );
  return value;
}

/** `value` unchanged when it names an image (not empty, no whitespace), else a UserError naming `field`. */
export function checkImageReference(field: string, value: string): string {
  if (value === '' || /\s/.test(value))
    throw new UserError(
      'invalid_argument',
      `${field}: must be an image reference such as registry.example/hookbox/sandbox:TAG (got ${JSON.stringify(value)})`,
      { details: { field } },
    );
  return value;
}
