import { loadSettings, setting, Settings, settingsReference } from '@app/config';

class PoolSettings extends Settings(
  'Pool',
  {
    size: setting.int('POOL_SIZE', { min: 1, max: 8, default: 2, doc: 'workers in the pool' }),
    mode: setting.oneOf('POOL_MODE', ['fast', 'safe'], { default: 'safe', doc: 'how | it runs' }),
    verbose: setting.boolean('POOL_VERBOSE', { default: false, doc: 'log each step' }),
    home: setting.url('POOL_HOME', {
      example: 'https://pool.example.org',
      base: true,
      doc: 'where it lives',
    }),
    password: setting.text('POOL_PASSWORD', { minLength: 8, secret: true, doc: 'its password' }),
    names: setting.text('POOL_NAMES', {
      pattern: /^\w+(,\w+)*$/,
      expected: 'a comma-separated list of names',
      read: (raw) => raw.split(','),
      default: ['a'],
      shownDefault: '`a`',
      doc: 'who is in it',
    }),
  },
  (values, rules) => {
    if (values.mode === 'fast') rules.require('home', 'POOL_MODE is fast');
    if (values.verbose && values.mode !== 'fast') rules.refuse('verbose', 'needs POOL_MODE=fast');
  },
) {
  get doubled(): number {
    return this.size * 2;
  }
}

class DiskSettings extends Settings('Disk', {
  dir: setting.path('DISK_DIR', { default: './disk', doc: 'the directory' }),
}) {}

describe('the settings helper', () => {
  it('gives each setting its default when unset or blank, and what a subclass derives from them', () => {
    const pool = loadSettings([PoolSettings], { POOL_SIZE: ' ', POOL_HOME: '' }).get(PoolSettings);
    expect({ ...pool }).toEqual({
      size: 2,
      mode: 'safe',
      verbose: false,
      home: undefined,
      password: undefined,
      names: ['a'],
    });
    expect(pool.doubled).toBe(4);
  });

  it('reads given values into their types', () => {
    const settings = loadSettings([PoolSettings, DiskSettings], {
      POOL_SIZE: '8',
      POOL_MODE: 'fast',
      POOL_VERBOSE: 'true',
      POOL_HOME: 'http://127.0.0.1:9000/pool//',
      POOL_PASSWORD: 'long enough',
      POOL_NAMES: 'x,y',
      DISK_DIR: '/srv/disk',
    });
    expect({ ...settings.get(PoolSettings) }).toEqual({
      size: 8,
      mode: 'fast',
      verbose: true,
      home: 'http://127.0.0.1:9000/pool',
      password: 'long enough',
      names: ['x', 'y'],
    });
    expect(settings.get(DiskSettings).dir).toBe('/srv/disk');
  });

  it('names every bad setting in one error, with the value given (a credential never) and what is expected', () => {
    const load = () =>
      loadSettings([PoolSettings, DiskSettings], {
        POOL_SIZE: '9',
        POOL_MODE: 'fast',
        POOL_VERBOSE: 'yes',
        POOL_PASSWORD: 'hunter2',
        POOL_NAMES: 'x;y',
      });
    expect(load).toThrow(
      [
        'Invalid configuration (5 problems):',
        "  - POOL_SIZE must be an integer from 1 to 8 (given: '9')",
        "  - POOL_VERBOSE must be true or false (given: 'yes')",
        '  - POOL_PASSWORD must be at least 8 characters long (given: 7 characters, not shown)',
        "  - POOL_NAMES must be a comma-separated list of names (given: 'x;y')",
        '  - POOL_HOME must be an absolute http(s) URL, such as https://pool.example.org; it is required when POOL_MODE is fast',
      ].join('\n'),
    );
    expect(() => loadSettings([PoolSettings], { POOL_VERBOSE: 'true' })).toThrow(
      'Invalid configuration (a problem):\n  - POOL_VERBOSE=true needs POOL_MODE=fast',
    );
    expect(() => loadSettings([PoolSettings], { POOL_HOME: 'ftp://user:hunter2@pool' })).toThrow(
      "POOL_HOME must be an absolute http(s) URL, such as https://pool.example.org (given: 'ftp://…@pool')",
    );
  });

  it('refuses a variable that two classes declare', () => {
    class Again extends Settings('Again', { size: setting.int('POOL_SIZE', { min: 0, doc: '' }) }) {}
    expect(() => loadSettings([PoolSettings, Again], {})).toThrow(
      'POOL_SIZE is declared by both PoolSettings and Again',
    );
  });

  it('tells the docs each setting with its default and meaning, and who reads it', () => {
    const reference = settingsReference({
      'the API': [PoolSettings, DiskSettings],
      'the worker': [PoolSettings],
    });
    expect(reference).toContain('## Pool\n\nRead by the API and the worker.\n');
    expect(reference).toContain('| `POOL_MODE` | `safe` | fast or safe | how \\| it runs |');
    expect(reference).toContain(
      '| `POOL_HOME` | unset | an absolute http(s) URL, such as https://pool.example.org | where it lives |',
    );
    expect(reference).toContain('## Disk\n\nRead by the API.\n');
    expect(reference).toContain('| `DISK_DIR` | `./disk` | a path | the directory |');
  });
});
