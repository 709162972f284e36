import type { Connector, ConnectorSession, TargetStatus } from './connector';
import type { Upstream } from './http';
import type { NameRule } from './name-rules';

/** What sets one remote repository's connector apart; the rest is the same for all of them. */
export interface RemoteConnectorParts {
  upstream: Upstream;
  statusTimeoutMs: number;
  /** the checksums the repository keeps of its files (Connector.hashAlgorithms) */
  hashAlgorithms: readonly string[];
  nameProblem: NameRule;
  /** why the repository refuses a file of that size (Connector.fileSizeProblem); none when it takes any */
  fileSizeProblem?: (size: number) => string | null;
  /** a cheap path of the API that answers without a token (an answer of 401 counts): the target's status */
  probePath: string;
  /** checks the token with the repository's cheapest authenticated call and answers the user's session */
  open(token: string): Promise<ConnectorSession>;
}

/** A connector over one remote repository's API. */
export function remoteConnector(parts: RemoteConnectorParts): Connector {
  return {
    hashAlgorithms: parts.hashAlgorithms,
    nameProblem: parts.nameProblem,
    fileSizeProblem: parts.fileSizeProblem,
    open: (token) => parts.open(token),
    status: (): Promise<TargetStatus> => parts.upstream.probe(parts.probePath, parts.statusTimeoutMs),
  };
}
