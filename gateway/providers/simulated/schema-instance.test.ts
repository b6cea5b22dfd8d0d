import { z } from 'zod';
import { instanceOf } from './schema-instance';

/** Each schema's instance must validate against it (zod reads the JSON Schema). */
const validates = (schema: Record<string, unknown>) =>
  z
    .fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0])
    .safeParse(instanceOf(schema, 'Paris'));

describe('a JSON value for a JSON Schema', () => {
  it.each([
    ['a string', { type: 'string' }],
    ['a bounded integer', { type: 'integer', minimum: 100, maximum: 120, multipleOf: 7 }],
    ['a number below an exclusive maximum', { type: 'number', exclusiveMaximum: 3 }],
    ['a boolean', { type: 'boolean' }],
    ['an enum', { type: 'string', enum: ['red', 'green'] }],
    ['a const', { const: 'fixed' }],
    ['a nullable string', { type: ['string', 'null'] }],
    ['a long string', { type: 'string', minLength: 40, maxLength: 50 }],
    ['an email', { type: 'string', format: 'email' }],
    ['a date-time', { type: 'string', format: 'date-time' }],
    ['an array of at least three', { type: 'array', items: { type: 'integer' }, minItems: 3 }],
    ['an empty array at most', { type: 'array', items: { type: 'string' }, maxItems: 0 }],
    [
      'a nested object with required and optional properties',
      {
        type: 'object',
        properties: {
          name: { type: 'string' },
          age: { type: 'integer', minimum: 0 },
          address: {
            type: 'object',
            properties: { city: { type: 'string' }, zip: { type: 'string', pattern: '.*' } },
            required: ['city'],
            additionalProperties: false,
          },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
        },
        required: ['name', 'age', 'address', 'tags'],
        additionalProperties: false,
      },
    ],
    [
      'a $ref into $defs',
      {
        type: 'object',
        properties: { step: { $ref: '#/$defs/step' } },
        required: ['step'],
        $defs: {
          step: {
            type: 'object',
            properties: { done: { type: 'boolean' } },
            required: ['done'],
          },
        },
      },
    ],
    ['anyOf with null first', { anyOf: [{ type: 'null' }, { type: 'number', minimum: 5 }] }],
  ])('gives %s', (_name, schema) => {
    const result = validates(schema);
    expect(result.error).toBeUndefined();
    expect(result.success).toBe(true);
  });

  it('fills strings with the subject, takes the first enum value, and one item per array', () => {
    expect(
      instanceOf(
        {
          type: 'object',
          properties: {
            city: { type: 'string' },
            unit: { enum: ['celsius', 'fahrenheit'] },
            days: { type: 'array', items: { type: 'integer' } },
          },
        },
        'Paris',
      ),
    ).toEqual({ city: 'Paris', unit: 'celsius', days: [42] });
  });
});
