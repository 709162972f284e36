import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from './errors';

/** `PRESQT_TOKEN_LAB` for `lab`, `PRESQT_TOKEN_CURATE_ND` for `curate_nd`. */
export function tokenVariable(target: string): string {
  return `PRESQT_TOKEN_${target.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** `$XDG_CONFIG_HOME/presqt/tokens.json`, by default `~/.config/presqt/tokens.json`. */
export function defaultTokensFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'presqt', 'tokens.json');
}

/**
 * The user's token for each target: from the environment first, then from the tokens file, a JSON object of
 * target name → token. A token is only ever put in a request header: no message of this program holds one.
 */
export class Tokens {
  private fileTokens: Record<string, string> | undefined;

  constructor(
    private readonly file: string,
    private readonly warn: (message: string) => void,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  find(target: string): string | undefined {
    const fromEnv = this.env[tokenVariable(target)]?.trim();
    if (fromEnv) return checked(fromEnv, target, tokenVariable(target));
    const fromFile = this.readFile()[target]?.trim();
    return fromFile ? checked(fromFile, target, this.file) : undefined;
  }

  /** Says where a token for `target` may be put. */
  missing(target: string): CliError {
    return new CliError(
      `No token for the target '${target}': set ${tokenVariable(target)} or add "${target}" to ${this.file}.`,
    );
  }

  private readFile(): Record<string, string> {
    if (this.fileTokens) return this.fileTokens;
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new CliError(
          `Cannot read the tokens file ${this.file}: ${(error as NodeJS.ErrnoException).code}.`,
        );
      return (this.fileTokens = {});
    }
    // a tokens file others can read gives their tokens away, as ssh warns of a private key
    if ((statSync(this.file).mode & 0o077) !== 0)
      this.warn(`Warning: ${this.file} can be read by other users; chmod 600 it.`);
    this.fileTokens = parseTokens(text, this.file);
    return this.fileTokens;
  }
}

/** A token that can't be a header value is refused here, since the HTTP client's error would quote it. */
function checked(token: string, target: string, source: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/.test(token))
    throw new CliError(`The token for '${target}' (${source}) holds a control or non-Latin-1 character.`);
  return token;
}

function parseTokens(text: string, file: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text, which holds tokens
    throw new CliError(`The tokens file ${file} is not valid JSON.`);
  }
  const valid =
    typeof parsed === 'object' &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every((value) => typeof value === 'string');
  if (!valid)
    throw new CliError(
      `The tokens file ${file} must be one JSON object of target name → token, e.g. {"lab": "..."}.`,
    );
  return parsed as Record<string, string>;
}
