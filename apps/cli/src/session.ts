import type { Command } from 'commander';
import { PresqtClient } from './client';
import { Output } from './output';
import { progressBar, type ProgressView } from './progress';
import { Tokens } from './tokens';

/** The options every command takes (see program.ts). */
export interface GlobalOptions {
  server: string;
  tokens: string;
  json: boolean;
  progress: boolean;
}

/** What one run of a command works with: the service, the user's tokens, the output and Ctrl-C. */
export class Session {
  readonly client: PresqtClient;
  readonly output: Output;
  readonly tokens: Tokens;

  constructor(
    private readonly options: GlobalOptions,
    readonly signal: AbortSignal,
  ) {
    this.output = new Output(options.json);
    this.client = new PresqtClient(options.server);
    this.tokens = new Tokens(options.tokens, (line) => this.output.note(line));
  }

  static of(command: Command, signal: AbortSignal): Session {
    return new Session(command.optsWithGlobals<GlobalOptions>(), signal);
  }

  /** The user's token for `target`; without one, the service's word on an unknown target, else how to add it. */
  async tokenFor(target: string): Promise<string> {
    const token = this.tokens.find(target);
    if (token) return token;
    await this.client.json(`/api_v1/targets/${encodeURIComponent(target)}/`, { signal: this.signal });
    throw this.tokens.missing(target);
  }

  progress(label: string): ProgressView {
    return progressBar(this.options.progress && process.stderr.isTTY === true, label);
  }
}
