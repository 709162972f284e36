import type { Setting } from './setting';

/** A lib's settings: a field name for each, with its declaration. */
export type Declarations = Record<string, Setting<unknown>>;

/** What a lib's declarations read to: each field's value. */
export type Values<D extends Declarations> = {
  readonly [K in keyof D]: D[K] extends Setting<infer T> ? T : never;
};

/** Rules between a lib's settings, beyond each one's own check (a URL that needs its token). */
export interface Rules<D extends Declarations> {
  /** whether the variable of `field` was given, whether or not it was valid */
  given(field: keyof D): boolean;
  /** `field` is unset, but must be set when the condition `when` describes holds */
  require(field: keyof D, when: string): void;
  /** `field`, as given, does not go with the other settings (`why` says so) */
  refuse(field: keyof D, why: string): void;
}

/** A class of settings: the declarations it reads, and an instance holding their values. */
export interface SettingsClass<D extends Declarations = Declarations> {
  new (values: Values<D>): Values<D>;
  /** the heading of its table in docs/configuration.md */
  readonly title: string;
  readonly declarations: D;
  readonly check?: (values: Values<D>, rules: Rules<D>) => void;
}

/** Any class that Settings() made, subclassed or not (the base of a lib's own settings class). */
export type AnySettingsClass = (new (values: never) => object) & {
  readonly title: string;
  readonly declarations: Declarations;
  readonly check?: (values: never, rules: never) => void;
};

/**
 * The base of a lib's settings class, which the lib declares next to the code that uses it, as each of
 * rclone's packages registers its own options:
 *
 *   export class MailSettings extends Settings('Email', {
 *     smtpUrl: setting.text('SMTP_URL', { pattern: /^smtps?:\/\/.+/, expected: 'an smtp:// URL', doc: '...' }),
 *   }) {}
 *
 * An instance holds the values (`mail.smtpUrl`); the class is also the Nest token it is injected by. A
 * subclass may add what it derives from them (getters, methods). `check` states the rules between them.
 */
export function Settings<D extends Declarations>(
  title: string,
  declarations: D,
  check?: (values: Values<D>, rules: Rules<D>) => void,
): SettingsClass<D> {
  return class {
    static readonly title = title;
    static readonly declarations = declarations;
    static readonly check = check;
    constructor(values: Values<D>) {
      Object.assign(this, values);
    }
  } as unknown as SettingsClass<D>;
}

/** A class's settings as they are when nothing is set: where a caller has no configuration (tests, tools). */
export function defaults<C extends AnySettingsClass>(type: C): InstanceType<C> {
  return loadSettings([type], {}).get(type);
}

/** The start-up error: every bad setting, one a line. */
export class ConfigError extends Error {}

/** The settings a process reads, validated. */
export class LoadedSettings {
  constructor(private readonly instances: ReadonlyMap<AnySettingsClass, object>) {}

  get<C extends AnySettingsClass>(type: C): InstanceType<C> {
    const instance = this.instances.get(type);
    if (!instance) throw new Error(`${type.name} is not among the settings this process loads`);
    return instance as InstanceType<C>;
  }

  /** every class with its instance */
  entries(): [AnySettingsClass, object][] {
    return [...this.instances];
  }
}

/**
 * Reads the settings of `types` from the environment; throws one ConfigError naming every bad setting, the
 * value given and what was expected.
 */
export function loadSettings(
  types: readonly AnySettingsClass[],
  source: NodeJS.ProcessEnv = process.env,
): LoadedSettings {
  refuseRepeatedNames(types);
  const problems: string[] = [];
  const read = types.map((type) => [type, readClass(type as SettingsClass, source, problems)] as const);
  if (problems.length > 0) {
    const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
    throw new ConfigError(`Invalid configuration (${count}):\n  - ${problems.join('\n  - ')}`);
  }
  return new LoadedSettings(
    new Map(read.map(([type, values]) => [type, new (type as SettingsClass)(values)] as const)),
  );
}

/** One variable declared by two libs would be read two ways: a mistake of ours, not of the deployment. */
function refuseRepeatedNames(types: readonly AnySettingsClass[]): void {
  const owners = new Map<string, string>();
  for (const type of types)
    for (const { env } of Object.values(type.declarations)) {
      const owner = owners.get(env);
      if (owner) throw new Error(`${env} is declared by both ${owner} and ${type.name}`);
      owners.set(env, type.name);
    }
}

function readClass<D extends Declarations>(
  type: SettingsClass<D>,
  source: NodeJS.ProcessEnv,
  problems: string[],
): Values<D> {
  const values: Record<string, unknown> = {};
  const raw = (field: keyof D): string | undefined => {
    const given = source[type.declarations[field].env];
    return given === undefined || given.trim() === '' ? undefined : given;
  };
  for (const [field, declared] of Object.entries(type.declarations)) {
    const given = raw(field);
    const parsed = given === undefined ? { value: declared.fallback } : declared.parse(given);
    if (!parsed)
      problems.push(`${declared.env} must be ${declared.expected} (given: ${quoted(declared, given!)})`);
    values[field] = parsed ? parsed.value : declared.fallback;
  }
  type.check?.(values as Values<D>, {
    given: (field) => raw(field) !== undefined,
    require: (field, when) => {
      const declared = type.declarations[field];
      if (raw(field) === undefined)
        problems.push(`${declared.env} must be ${declared.expected}; it is required when ${when}`);
    },
    refuse: (field, why) => {
      const declared = type.declarations[field];
      const given = raw(field) ?? '';
      problems.push(
        `${declared.secret ? `${declared.env} (not shown)` : `${declared.env}=${shown(given)}`} ${why}`,
      );
    },
  });
  return values as Values<D>;
}

/** How an error shows a given value: a credential not at all. */
function quoted(declared: Setting<unknown>, given: string): string {
  return declared.secret ? `${given.length} characters, not shown` : `'${shown(given)}'`;
}

/** A given value as an error shows it: a URL without its user and password, a long one cut short. */
function shown(given: string): string {
  const clean = given.replace(/\/\/[^/@\s]*@/, '//…@');
  return clean.length > 80 ? `${clean.slice(0, 80)}…` : clean;
}
