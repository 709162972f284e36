import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { RecordedAnswer } from '../fakes/fake-server';

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/**
 * An upstream's published OpenAPI (3.x) description, to check that a fake answers with the JSON the real
 * service is documented to give: each recorded answer is validated against the schema the description gives
 * for its path, method and status.
 */
export class OpenApiDescription {
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction | null>();

  constructor(
    private readonly spec: { paths: Record<string, Record<string, Operation>> },
    private readonly label: string,
    /**
     * what of an answer's body the description's schema describes: the body itself, unless the description
     * describes what sits inside an envelope (OSF's schemas describe the objects of its `data`)
     */
    private readonly described: (body: unknown) => unknown[] = (body) => [body],
  ) {
    // OpenAPI schemas carry keywords of their own (nullable is known to Ajv; example, x-... are not)
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, discriminator: false });
    addFormats(this.ajv);
    this.ajv.addSchema(nullableAsAnyOf(spec) as object, 'spec');
  }

  /** Every problem of the answers: invalid JSON, and answers to a path, method or status not described. */
  problems(answers: readonly RecordedAnswer[]): string[] {
    const problems = new Set<string>();
    for (const answer of answers) {
      const where = `${answer.method} ${answer.template} ${answer.status}`;
      const validate = this.validator(answer);
      if (validate === undefined) problems.add(`${where}: not in ${this.label}`);
      else if (validate) {
        for (const value of this.described(answer.body)) {
          if (validate(value)) continue;
          const details = (validate.errors ?? [])
            .slice(0, 3)
            .map((error) => `${error.instancePath || '/'} ${error.message}`)
            .join('; ');
          problems.add(`${where}: ${details}`);
        }
      }
    }
    return [...problems];
  }

  /** undefined: not described; null: described without a JSON schema (nothing to check). */
  private validator(answer: RecordedAnswer): ValidateFunction | null | undefined {
    const operation = this.spec.paths[answer.template]?.[answer.method.toLowerCase()];
    if (!operation) return undefined;
    const status = [String(answer.status), `${String(answer.status)[0]}XX`, 'default'].find(
      (key) => operation.responses?.[key],
    );
    if (!status) return undefined;
    const content = operation.responses?.[status]?.content ?? {};
    const type = Object.keys(content).find((name) => /json|^\*\/\*$/.test(name));
    if (!type || !content[type].schema) return null;
    const pointer = [
      'paths',
      answer.template,
      answer.method.toLowerCase(),
      'responses',
      status,
      'content',
      type,
    ]
      .map((segment) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1')))
      .join('/');
    const key = `spec#/${pointer}/schema`;
    if (!this.validators.has(key)) this.validators.set(key, this.ajv.compile({ $ref: key }));
    return this.validators.get(key) ?? null;
  }
}

/**
 * OpenAPI 3.0 lets a schema be `nullable` without a `type` (GitHub's nullable `allOf`s), which Ajv refuses to
 * compile; such a schema means "this, or null", which is what `anyOf` says.
 */
function nullableAsAnyOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(nullableAsAnyOf);
  if (typeof schema !== 'object' || schema === null) return schema;
  const { nullable, ...rest } = schema as Record<string, unknown>;
  const inner = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, nullableAsAnyOf(value)]));
  if (nullable === true && rest.type === undefined) return { anyOf: [inner, { type: 'null' }] };
  return nullable === undefined ? inner : { ...inner, nullable };
}
