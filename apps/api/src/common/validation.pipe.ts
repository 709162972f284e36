import { type ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { ServiceError } from '@app/common';

/**
 * A ValidationPipe that answers an empty object (a request without a query, the commonest listing) without
 * class-transformer and class-validator, where the DTO accepts one: which it finds once per DTO, by
 * validating an empty object as any other. Their work on an empty query was about 46 µs of the listing's
 * CPU a request (bench:listing, a build without the query's validation).
 */
class StrictValidationPipe extends ValidationPipe {
  private readonly acceptsEmpty = new Map<ArgumentMetadata['metatype'], Promise<boolean>>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (isEmptyObject(value) && (await this.emptyAccepted(metadata))) return value;
    return super.transform(value, metadata);
  }

  private emptyAccepted(metadata: ArgumentMetadata): Promise<boolean> {
    let accepted = this.acceptsEmpty.get(metadata.metatype);
    if (accepted === undefined) {
      // only where the pipe answers an empty object with no value set (its fields, declared, are there
      // undefined): a DTO whose fields have defaults gives them
      accepted = super.transform({}, metadata).then(
        (answer) => Object.values(answer as object).every((field) => field === undefined),
        () => false,
      );
      this.acceptsEmpty.set(metadata.metatype, accepted);
    }
    return accepted;
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
export function strictValidation(part: 'query parameter' | 'body field'): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    exceptionFactory: (errors: ValidationError[]) =>
      ServiceError.badRequest(errors.flatMap((error) => describe(error, part)).join(' ')),
  });
}

function describe(error: ValidationError, part: string): string[] {
  const constraints = error.constraints ?? {};
  if (constraints.whitelistValidation) {
    return [`PresQT Error: '${error.property}' is not a ${part} of this endpoint.`];
  }
  const own = Object.values(constraints);
  return [...own, ...(error.children ?? []).flatMap((child) => describe(child, part))];
}
