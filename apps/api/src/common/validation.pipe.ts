import { type ArgumentMetadata, type PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { ServiceError } from '@app/common';

/**
 * A ValidationPipe that answers an empty object (a request without a query, the commonest listing) without
 * class-transformer and class-validator, and without a promise, where the DTO accepts one: which it finds
 * from the first empty object it validates as any other. Their work on an empty query was about 46 µs of the
 * listing's CPU a request (bench:listing, a build without the query's validation).
 */
class StrictValidationPipe implements PipeTransform {
  /** per DTO, whether an empty object passed with no value set, once one has been validated */
  private readonly acceptsEmpty = new Map<ArgumentMetadata['metatype'], boolean>();

  constructor(private readonly pipe: ValidationPipe) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (isEmptyObject(value) && this.acceptsEmpty.get(metadata.metatype) === true) return value;
    return this.validated(value, metadata);
  }

  private async validated(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const answer: unknown = await this.pipe.transform(value, metadata);
    // only where the pipe answers an empty object with no value set (its fields, declared, are there
    // undefined): a DTO whose fields have defaults gives them
    if (isEmptyObject(value)) {
      const unset = Object.values(answer as object).every((field) => field === undefined);
      this.acceptsEmpty.set(metadata.metatype, unset);
      if (unset) return value;
    }
    return answer;
  }
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

/**
 * Validates a DTO and answers 400 with every problem, naming each field. Unknown fields are refused, so a
 * typo in a parameter name is reported instead of silently ignored.
 */
export function strictValidation(part: 'query parameter' | 'body field'): PipeTransform {
  return new StrictValidationPipe(
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      exceptionFactory: (errors: ValidationError[]) =>
        ServiceError.badRequest(errors.flatMap((error) => describe(error, part)).join(' ')),
    }),
  );
}

function describe(error: ValidationError, part: string): string[] {
  const constraints = error.constraints ?? {};
  if (constraints.whitelistValidation) {
    return [`PresQT Error: '${error.property}' is not a ${part} of this endpoint.`];
  }
  const own = Object.values(constraints);
  return [...own, ...(error.children ?? []).flatMap((child) => describe(child, part))];
}
