import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ServiceError } from '@app/common';

/**
 * Validates a DTO and answers 400 with every problem, naming each field. Unknown fields are refused, so a
 * typo in a parameter name is reported instead of silently ignored.
 */
export function strictValidation(part: 'query parameter' | 'body field'): ValidationPipe {
  return new ValidationPipe({
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
