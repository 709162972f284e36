import { IsOptional, IsString, Matches } from 'class-validator';
import { ServiceError } from '@app/common';
import { strictValidation } from '../../apps/api/src/common/validation.pipe';

class AllOptional {
  @IsOptional()
  @Matches(/^[1-9]\d*$/, { message: 'page must be a positive integer' })
  page?: string;
}

class OneRequired {
  @IsString({ message: 'name must be a string' })
  name!: string;
}

class WithDefault {
  @IsOptional()
  @IsString()
  order: string = 'newest';
}

/** What the pipe answers for `value` as a query of `metatype`: the value, or the 400's message. */
async function validated(metatype: new () => object, value: unknown): Promise<unknown> {
  try {
    return await strictValidation('query parameter').transform(value, { type: 'query', metatype });
  } catch (error) {
    if (error instanceof ServiceError) return `${error.status}: ${error.message}`;
    throw error;
  }
}

describe('strictValidation', () => {
  it('answers an empty query of a DTO whose fields are all optional with it', async () => {
    const pipe = strictValidation('query parameter');
    const empty = {};

    for (let i = 0; i < 2; i++)
      expect(await pipe.transform(empty, { type: 'query', metatype: AllOptional })).toBe(empty);
  });

  it('answers an empty query at once, not as a promise, once one has passed', async () => {
    const pipe = strictValidation('query parameter');
    await pipe.transform({}, { type: 'query', metatype: AllOptional });
    const empty = {};

    expect(pipe.transform(empty, { type: 'query', metatype: AllOptional })).toBe(empty);
    await expect(pipe.transform({}, { type: 'query', metatype: OneRequired })).rejects.toThrow(
      'name must be a string',
    );
  });

  it('answers 400 naming each problem of a query that is not empty', async () => {
    expect(await validated(AllOptional, { page: '0' })).toBe('400: page must be a positive integer');
    expect(await validated(AllOptional, { colour: 'red' })).toBe(
      "400: PresQT Error: 'colour' is not a query parameter of this endpoint.",
    );
    expect(await validated(AllOptional, { page: '2' })).toEqual({ page: '2' });
  });

  it('still validates an empty object where the DTO requires a field or gives a default', async () => {
    const pipe = strictValidation('query parameter');
    for (let i = 0; i < 2; i++) {
      await expect(pipe.transform({}, { type: 'query', metatype: OneRequired })).rejects.toThrow(
        'name must be a string',
      );
      expect(await pipe.transform({}, { type: 'query', metatype: WithDefault })).toEqual({ order: 'newest' });
    }
  });
});
