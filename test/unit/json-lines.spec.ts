import { JsonLinesWriter, SpilledList, readJsonLines, stringifySpilled } from '@app/common';
import { mergeFtsMetadata, newAction, type FtsFileEntry } from '@app/metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function fileEntry(i: number): FtsFileEntry {
  return {
    sourcePath: `/Project/folder ${i % 7}/"quoted"\nname-${i}.txt`,
    title: `name-${i}.txt`,
    sourceHashes: { sha256: `${i}`.repeat(8), md5: null },
    destinationHashes: {},
    destinationPath: `/Project/ünïcødé/name-${i}.txt`,
    failedFixityInfo:
      i % 1000 === 0 ? [{ NewGeneratedHash: 'ab', algorithmUsed: 'md5', reasonFixityFailed: 'differs' }] : [],
    extra: i % 2 ? { nested: { list: [1, [], {}] } } : {},
  };
}

async function spill(path: string, records: FtsFileEntry[]): Promise<SpilledList<FtsFileEntry>> {
  const writer = new JsonLinesWriter<FtsFileEntry>(path);
  for (const record of records) await writer.append(record);
  await writer.close();
  return new SpilledList(path);
}

async function joined(pieces: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const piece of pieces) text += piece;
  return text;
}

describe('JSON lines', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'json-lines-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads back the records written, in order', async () => {
    const records = Array.from({ length: 500 }, (_, i) => fileEntry(i));
    const list = await spill(join(dir, 'order.jsonl'), records);
    const read: FtsFileEntry[] = [];
    for await (const record of readJsonLines<FtsFileEntry>(list.path)) read.push(record);
    expect(read).toEqual(records);
  });

  it('streams a metadata file with spilled lists exactly as JSON.stringify writes it with the arrays', async () => {
    const created = Array.from({ length: 5000 }, (_, i) => fileEntry(i));
    const ignored = [fileEntry(1)];
    const earlier = newAction({
      details: 'an earlier action',
      actionType: 'resource_upload',
      sourceTargetName: 'Local Machine',
      destinationTargetName: 'osf',
      sourceUsername: null,
      destinationUsername: 'ada',
      keywords: { note: '[] placeholder-like "text"' },
      files: { created: [fileEntry(9)], updated: [], ignored: [] },
    });
    const fields = {
      details: 'this job',
      actionType: 'resource_transfer_in',
      sourceTargetName: 'github',
      destinationTargetName: 'osf',
      sourceUsername: 'ada',
      destinationUsername: 'ada',
      keywords: {},
    };
    const action = newAction({
      ...fields,
      files: {
        created: await spill(join(dir, 'created.jsonl'), created),
        updated: await spill(join(dir, 'updated.jsonl'), []),
        ignored: await spill(join(dir, 'ignored.jsonl'), ignored),
      },
    });
    const inMemory = { ...action, files: { created, updated: [], ignored } };
    const existing = { allKeywords: ['soil'], actions: [earlier], extra_metadata: { a: 1 } };

    const streamed = await joined(stringifySpilled(mergeFtsMetadata(existing, [action], ['water'])));
    expect(streamed).toBe(JSON.stringify(mergeFtsMetadata(existing, [inMemory], ['water']), null, 2));
  });

  // A bag writer aborted by a cancel discards its manifests while a file's digest is still on its way; that
  // file's line then comes after the discard, and once waited for ever on a 'drain' a closed file never emits.
  it('fails an append after a discard, and one waiting for the file to drain when it is discarded', async () => {
    const writer = new JsonLinesWriter<{ text: string }>(join(dir, 'discarded.jsonl'));
    // a line longer than the file's buffer, so that the append waits for it to drain
    const waiting = writer.append({ text: 'x'.repeat(1 << 20) });
    await writer.discard();
    await expect(waiting).rejects.toThrow('closed');
    await expect(writer.append({ text: 'late' })).rejects.toThrow('closed');
  }, 5000);
});
