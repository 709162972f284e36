import type { ConnectorDefinition } from '@app/connectors';
import { connectorContext } from '../support/connector-context';
import { capabilityCases } from './capability-cases';
import { contractCases } from './contract-cases';
import { PER_PAGE, TOKEN, type ConnectorUnderTest, type Suite } from './suite';

export { TOKEN, type ConnectorUnderTest, type SeedTree } from './suite';

/**
 * The contract every connector keeps, run against each one (the filesystem on a temporary directory, each
 * remote one against its fake upstream), as rclone runs its fstests over every backend: what the connector
 * declares it can do (its capabilities) decides which cases run. A connector's own spec keeps only what is
 * special to it.
 */
export function describeConnector<Options extends { per_page?: number }>(
  definition: Pick<ConnectorDefinition<Options>, 'name' | 'capabilities' | 'create'>,
  setup: () => Promise<ConnectorUnderTest<Options>>,
): void {
  describe(`${definition.name} connector: the connector contract`, () => {
    // filled in by the hooks below before any case runs
    const suite = { capabilities: definition.capabilities } as Suite;

    beforeAll(async () => {
      const target = await setup();
      suite.target = target;
      const options = { ...target.options, per_page: PER_PAGE };
      suite.connector = definition.create(options, connectorContext(target.context));
    });

    beforeEach(async () => {
      await suite.target.reset();
      suite.session = await suite.connector.open(suite.target.token ?? TOKEN);
    });

    afterAll(async () => {
      await suite.target?.teardown?.();
    });

    contractCases(suite);
    describe('capabilities', () => capabilityCases(suite));
  });
}
