import { dirname } from 'node:path';
import { ServiceError } from '@app/common';
import { ProcessSettings, type LoadedSettings } from '@app/config';
import {
  type Connector,
  CONNECTOR_NAMES,
  findConnector,
  type TargetStatus,
  UpstreamSettings,
} from '@app/connectors';
import { capabilityProblems } from './entry-capabilities';
import { loadTargetsFile } from './load-targets-file';
import type { TargetAction, TargetEntry } from './target-entry';
import { TargetSettings } from './targets.settings';

/** A target of the targets file together with the connector that serves it. */
export class Target {
  constructor(
    readonly entry: TargetEntry,
    readonly connector: Connector,
  ) {}

  get name(): string {
    return this.entry.name;
  }

  supports(action: TargetAction): boolean {
    return this.entry.supported_actions[action];
  }

  /** Throws 400 naming the action when the target does not offer it. */
  requireAction(action: TargetAction): void {
    if (!this.supports(action)) {
      throw ServiceError.badRequest(`PresQT Error: '${this.name}' does not support the action '${action}'.`);
    }
  }

  status(): Promise<TargetStatus> {
    return this.connector.status();
  }
}

/** The targets of the targets file, loaded and validated once at start-up (docs/targets-file.md). */
export class TargetsRegistry {
  private readonly byName: Map<string, Target>;

  private constructor(readonly targets: readonly Target[]) {
    this.byName = new Map(targets.map((target) => [target.name, target]));
  }

  /** Throws TargetsFileError naming each bad entry and field. */
  static load(settings: LoadedSettings): TargetsRegistry {
    const targets = settings.get(TargetSettings);
    const entries = loadTargetsFile(targets.file, (entry) => {
      const definition = findConnector(entry.connector);
      if (definition) {
        return [
          ...definition.validateOptions(entry.options ?? {}).map((problem) => `field 'options': ${problem}`),
          ...capabilityProblems(entry, definition.capabilities),
        ];
      }
      return [
        `field 'connector' names '${entry.connector}', which is not a known connector (known: ${CONNECTOR_NAMES.join(', ')})`,
      ];
    });
    const context = {
      dataDir: settings.get(ProcessSettings).dataDir,
      configDir: dirname(targets.file),
      perPage: targets.perPage,
      upstream: settings.get(UpstreamSettings),
      statusTimeoutMs: targets.statusTimeoutMs,
    };
    return new TargetsRegistry(
      entries.map((entry) => {
        // every entry names a known connector: the targets file was checked above
        const connector = findConnector(entry.connector)!.create(entry.options ?? {}, {
          ...context,
          targetName: entry.name,
        });
        return new Target(entry, connector);
      }),
    );
  }

  find(name: string): Target | undefined {
    return this.byName.get(name);
  }

  /** Throws 404 naming the unknown target. */
  require(name: string): Target {
    const target = this.find(name);
    if (!target) throw ServiceError.notFound(`PresQT Error: '${name}' is not a valid Target name.`);
    return target;
  }
}
