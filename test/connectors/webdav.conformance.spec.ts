import type { ConnectorDefinition } from '@app/connectors';
import { webdavConnector, type WebdavOptions } from '@app/connectors/webdav';
import { describeConnector, TOKEN } from '../conformance/describe-connector';
import { BAD_TOKEN } from '../conformance/suite';
import { NextcloudFake } from '../fakes/webdav/nextcloud-fake';
import { RcloneWebdav } from '../fakes/webdav/rclone-webdav';

/**
 * The suite opens sessions with its own tokens; a WebDAV token is `<user>:<app password>`, so the suite's
 * user's token stands for the server's user and password, and its bad token for a wrong password.
 */
function withTokens(name: string, token: () => string): ConnectorDefinition<WebdavOptions> {
  return {
    ...webdavConnector,
    name,
    create(options, context) {
      const connector = webdavConnector.create(options, context);
      const tokenOf = (given: string) =>
        given === TOKEN ? token() : given === BAD_TOKEN ? `${token().split(':')[0]}:wrong` : given;
      return { ...connector, open: (given) => connector.open(tokenOf(given)) };
    },
  };
}

let rclone: RcloneWebdav;
describeConnector<WebdavOptions>(
  withTokens('webdav (rclone serve webdav)', () => rclone.token),
  async () => {
    rclone = await new RcloneWebdav().start();
    return {
      options: { api_url: rclone.urlTemplate },
      seedProject: async (title, files) => rclone.seedProject(title, files),
      reset: async () => rclone.reset(),
      teardown: () => rclone.stop(),
    };
  },
);

let nextcloud: NextcloudFake;
let nextcloudToken = '';
describeConnector<WebdavOptions>(
  withTokens('webdav (Nextcloud fake)', () => nextcloudToken),
  async () => {
    nextcloud = await new NextcloudFake().start();
    nextcloudToken = nextcloud.addUser('alice', 'alice-app-password');
    nextcloud.addUser('bob', 'bob-app-password');
    return {
      options: { api_url: nextcloud.urlTemplate },
      seedProject: async (title, files) => nextcloud.seedProject('alice', title, files),
      reset: async () => nextcloud.reset(),
      teardown: () => nextcloud.stop(),
    };
  },
);
