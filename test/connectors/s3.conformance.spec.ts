import { s3Connector } from '@app/connectors/s3';
import { describeConnector } from '../conformance/describe-connector';
import { S3ChecksumProxy } from '../fakes/s3/s3-proxy';
import { S3RVER_TOKEN, S3Seeder } from '../fakes/s3/s3-seeder';
import { startS3Server } from '../support/s3-server';

/**
 * A real s3rver process behind the checksum proxy, which adds what s3rver lacks of S3's SHA-256 checksums;
 * the projects are the top-level prefixes below `conformance/` of its bucket.
 */
describeConnector(s3Connector, async () => {
  const server = await startS3Server();
  const proxy = await new S3ChecksumProxy(server.endpoint).start();
  const seeder = new S3Seeder(proxy.url, server.bucket, 'conformance/');
  return {
    options: { api_url: proxy.url, bucket: server.bucket, prefix: 'conformance/', path_style: true },
    token: S3RVER_TOKEN,
    order: 'name',
    seedProject: (title, files, { keywords } = {}) => seeder.seedProject(title, files, keywords),
    reset: () => seeder.reset(),
    teardown: async () => {
      seeder.close();
      await proxy.stop();
      await server.stop();
    },
  };
});
