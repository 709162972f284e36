import { resolve } from 'node:path';
import { isURL } from 'class-validator';

/**
 * One environment variable, declared once: its name, what a valid value is, its default and a line for
 * docs/configuration.md. A lib declares its settings with the builders of `setting` (below) in a Settings
 * class (settings.ts); an unset or blank variable takes the default.
 */
export interface Setting<T> {
  readonly env: string;
  /** what a valid value is, as an error says it: "an integer from 1 to 64" */
  readonly expected: string;
  /** what the setting does, for docs/configuration.md (Markdown, links relative to docs/) */
  readonly doc: string;
  /** the value when the variable is unset or blank */
  readonly fallback: T;
  /** the default as docs/configuration.md shows it */
  readonly shownDefault: string;
  /** a credential: an error says that it was given, never what */
  readonly secret: boolean;
  /** the value a non-blank variable stands for; null when it is not one `expected` describes */
  parse(raw: string): { value: T } | null;
}

interface Described {
  doc: string;
  /** the default in the docs, where the value alone says too little ("10 GiB", "from the request") */
  shownDefault?: string;
}

/** Options of a setting with a default (value: T) or without one (value: T | undefined). */
type WithDefault<O, T> = O & { default: T };
type WithoutDefault<O> = O & { default?: undefined };

function declare<T>(
  env: string,
  options: Described & { default?: T; secret?: boolean },
  expected: string,
  parse: (raw: string) => { value: T } | null,
): Setting<T> {
  const fallback = options.default as T;
  return {
    env,
    expected,
    doc: options.doc,
    fallback,
    shownDefault: options.shownDefault ?? (fallback === undefined ? 'unset' : `\`${String(fallback)}\``),
    secret: options.secret ?? false,
    parse,
  };
}

interface IntOptions extends Described {
  min: number;
  max?: number;
  /** what the number counts, when its name does not say: "bytes a second" */
  unit?: string;
}

function int(env: string, options: WithDefault<IntOptions, number>): Setting<number>;
function int(env: string, options: WithoutDefault<IntOptions>): Setting<number | undefined>;
function int(env: string, options: IntOptions & { default?: number }): Setting<number | undefined> {
  const { min, max, unit } = options;
  const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
  const expected = `an integer ${range}${unit ? ` (${unit})` : ''}`;
  return declare(env, options, expected, (raw) => {
    const value = /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
    const fits = Number.isSafeInteger(value) && value >= min && (max === undefined || value <= max);
    return fits ? { value } : null;
  });
}

function oneOf<const C extends string>(
  env: string,
  choices: readonly C[],
  options: Described & { default: C },
): Setting<C> {
  const expected = `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}`;
  return declare(env, options, expected, (raw) =>
    (choices as readonly string[]).includes(raw) ? { value: raw as C } : null,
  );
}

function boolean(env: string, options: Described & { default: boolean }): Setting<boolean> {
  return declare(env, options, 'true or false', (raw) =>
    raw === 'true' || raw === 'false' ? { value: raw === 'true' } : null,
  );
}

interface TextOptions<T> extends Described {
  /** what a valid value is; required with `pattern` */
  expected?: string;
  pattern?: RegExp;
  /** a check beyond the pattern's */
  valid?: (raw: string) => boolean;
  minLength?: number;
  secret?: boolean;
  /** the value a valid text stands for (a list, a trimmed text) */
  read?: (raw: string) => T;
}

function text<T = string>(env: string, options: WithDefault<TextOptions<T>, T>): Setting<NoInfer<T>>;
function text<T = string>(
  env: string,
  options: WithoutDefault<TextOptions<T>>,
): Setting<NoInfer<T> | undefined>;
function text<T>(env: string, options: TextOptions<T> & { default?: T }): Setting<T | undefined> {
  const { pattern, valid = () => true, minLength = 0, read = (raw: string) => raw as T } = options;
  const expected = options.expected ?? (minLength > 0 ? `at least ${minLength} characters long` : 'a text');
  return declare(env, options, expected, (raw) =>
    raw.length >= minLength && (!pattern || pattern.test(raw)) && valid(raw) ? { value: read(raw) } : null,
  );
}

interface UrlOptions extends Described {
  /** a valid value, for the error */
  example: string;
  /** what the URL is of, for the error: "the absolute http(s) URL of a SciGraph service" */
  expected?: string;
  /** a base URL that paths are appended to: trailing slashes are dropped */
  base?: boolean;
}

function url(env: string, options: WithDefault<UrlOptions, string>): Setting<string>;
function url(env: string, options: WithoutDefault<UrlOptions>): Setting<string | undefined>;
function url(env: string, options: UrlOptions & { default?: string }): Setting<string | undefined> {
  const expected = `${options.expected ?? 'an absolute http(s) URL'}, such as ${options.example}`;
  return declare(env, options, expected, (raw) =>
    isURL(raw, { require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
      ? { value: options.base ? raw.replace(/\/+$/, '') : raw }
      : null,
  );
}

/** A file or directory; its value is absolute, resolved against the working directory. */
function path(env: string, options: WithDefault<Described, string>): Setting<string>;
function path(env: string, options: WithoutDefault<Described>): Setting<string | undefined>;
function path(env: string, options: Described & { default?: string }): Setting<string | undefined> {
  const fallback = options.default === undefined ? undefined : resolve(options.default);
  const shownDefault = options.shownDefault ?? (options.default ? `\`${options.default}\`` : undefined);
  return declare(env, { ...options, default: fallback, shownDefault }, 'a path', (raw) => ({
    value: resolve(raw),
  }));
}

/** The kinds of setting, each with the check and the default it shows in the docs. */
export const setting = { int, oneOf, boolean, text, url, path };
