import { ServiceError } from '@app/common';

const HEADER = 'presqt-email-opt-in';

// Deliberately stricter than RFC 5322: a dot-atom local part (no quoted strings, comments or display names)
// and a hostname of dotted LDH labels, or `localhost`. That excludes spaces, commas, angle brackets, quotes
// and CR/LF, so a value can never smuggle a second recipient or an extra mail header.
// RFC 5322 `atext`, the characters of one dot-separated part of the local part
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const LOCAL_PART = new RegExp(`^${ATEXT}+(\\.${ATEXT}+)*$`);
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** True when `value` is exactly one plain email address (`local@domain`), nothing more. */
export function isEmailAddress(value: string): boolean {
  // 254 is the longest address SMTP can carry (RFC 5321 path limit minus the angle brackets)
  if (value.length > 254) return false;
  const at = value.indexOf('@');
  if (at < 1 || at !== value.lastIndexOf('@')) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (local.length > 64 || !LOCAL_PART.test(local)) return false;
  if (domain.toLowerCase() === 'localhost') return true;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((label) => LABEL.test(label));
}

/**
 * Reads the `presqt-email-opt-in` request header (docs/behaviour.md#email): required on download, upload and transfer
 * starts; empty means "no email", otherwise it must hold exactly one address.
 * Returns the trimmed address, or null when the user opted out.
 */
export function parseEmailOptIn(headerValue: string | string[] | undefined): string | null {
  if (headerValue === undefined) {
    throw new ServiceError(400, `PresQT Error: '${HEADER}' missing in the request headers.`);
  }
  // a header sent twice is two values, which is not "one address": joining makes the check below fail it
  const raw = Array.isArray(headerValue) ? headerValue.join(', ') : headerValue;
  const value = raw.trim();
  if (value === '') return null;
  if (!isEmailAddress(value)) {
    throw new ServiceError(
      400,
      `PresQT Error: '${HEADER}' must be empty or one email address; got '${raw.slice(0, 100)}'.`,
    );
  }
  return value;
}
