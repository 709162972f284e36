import { PassThrough, Readable, Transform } from 'node:stream';
import { text } from 'node:stream/consumers';
import { meter, pipeInto } from '@app/common';

describe('meter and pipeInto', () => {
  it('passes every byte on, with each chunk seen on the way', async () => {
    const seen: number[] = [];
    const metered = meter(Readable.from([Buffer.from('ab'), Buffer.from('cde')]), (chunk) => {
      seen.push(chunk.length);
    });
    expect(await text(metered)).toBe('abcde');
    expect(seen).toEqual([2, 3]);
  });

  it("fails the reader with the source's error, and closes the source when the reader gives up", async () => {
    const failing = new Readable({ read() {} });
    const metered = meter(failing, () => undefined);
    failing.destroy(new Error('disk gone'));
    await expect(text(metered)).rejects.toThrow('disk gone');

    const source = new Readable({ read() {} });
    const through = new PassThrough();
    const piped = pipeInto(source, through);
    through.destroy();
    await expect(piped).rejects.toThrow('Premature close');
    expect(source.destroyed).toBe(true);
  });

  it('rejects with an error of the transform, and resolves once the transform has taken everything', async () => {
    const source = Readable.from([Buffer.from('x')]);
    const refusing = new Transform({
      transform(_chunk, _encoding, callback) {
        callback(new Error('refused'));
      },
    });
    await expect(pipeInto(source, refusing)).rejects.toThrow('refused');
    expect(source.destroyed).toBe(true);

    const whole = new PassThrough();
    const piped = pipeInto(Readable.from([Buffer.from('yz')]), whole);
    const read = text(whole);
    await piped;
    expect(await read).toBe('yz');
  });
});
