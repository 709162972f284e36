import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../../apps/cli/src/errors';
import { defaultTokensFile, tokenVariable, Tokens } from '../../apps/cli/src/tokens';

describe('the CLI tokens', () => {
  const dir = mkdtempSync(join(tmpdir(), 'presqt-cli-tokens-'));
  const file = (name: string, content: string, mode = 0o600) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    chmodSync(path, mode);
    return path;
  };
  const failure = (run: () => unknown): CliError => {
    try {
      run();
    } catch (error) {
      if (error instanceof CliError) return error;
      throw error;
    }
    throw new Error('no CliError was thrown');
  };

  it('names the variable of a target and the default file', () => {
    expect(tokenVariable('lab')).toBe('PRESQT_TOKEN_LAB');
    expect(tokenVariable('curate_nd')).toBe('PRESQT_TOKEN_CURATE_ND');
    expect(tokenVariable('my-lab.2')).toBe('PRESQT_TOKEN_MY_LAB_2');
    expect(defaultTokensFile({ HOME: '/home/ann' })).toMatch(/\/\.config\/presqt\/tokens\.json$/);
    expect(defaultTokensFile({ XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/presqt/tokens.json');
  });

  it('takes the environment before the file, trims, and finds nothing for an unknown target', () => {
    const tokens = new Tokens(
      file('both.json', '{"lab": "from-file", "osf": " osf-token\\n"}'),
      () => undefined,
      {
        PRESQT_TOKEN_LAB: 'from-env',
      },
    );
    expect(tokens.find('lab')).toBe('from-env');
    expect(tokens.find('osf')).toBe('osf-token');
    expect(tokens.find('zenodo')).toBeUndefined();
    expect(new Tokens(join(dir, 'absent.json'), () => undefined, {}).find('lab')).toBeUndefined();
  });

  it('warns of a file others can read, once', () => {
    const warnings: string[] = [];
    const tokens = new Tokens(file('open.json', '{"lab": "t"}', 0o644), (line) => warnings.push(line), {});
    tokens.find('lab');
    tokens.find('osf');
    expect(warnings).toEqual([
      `Warning: ${join(dir, 'open.json')} can be read by other users; chmod 600 it.`,
    ]);
  });

  it('refuses a bad file or token without quoting the secret', () => {
    const secret = 'secret-123';
    const notJson = failure(() =>
      new Tokens(file('bad.json', `{"lab": "${secret}",}`), () => undefined, {}).find('lab'),
    );
    expect(notJson.message).toBe(`The tokens file ${join(dir, 'bad.json')} is not valid JSON.`);
    const notObject = failure(() =>
      new Tokens(file('list.json', `["${secret}"]`), () => undefined, {}).find('lab'),
    );
    expect(notObject.message).toContain('must be one JSON object of target name → token');
    expect(notObject.message).not.toContain(secret);
    const broken = failure(() =>
      new Tokens(join(dir, 'x'), () => undefined, { PRESQT_TOKEN_LAB: `${secret}\nX` }).find('lab'),
    );
    expect(broken.message).toBe(
      "The token for 'lab' (PRESQT_TOKEN_LAB) holds a control or non-Latin-1 character.",
    );
  });

  it('says where a missing token goes', () => {
    const missing = new Tokens('/cfg/presqt/tokens.json', () => undefined, {}).missing('curate_nd');
    expect(missing.message).toBe(
      `No token for the target 'curate_nd': set PRESQT_TOKEN_CURATE_ND or add "curate_nd" to /cfg/presqt/tokens.json.`,
    );
  });
});
