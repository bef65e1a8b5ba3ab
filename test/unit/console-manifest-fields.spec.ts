/**
 * The console's manifest editor completes field names from a static list
 * (apps/console/src/editor/manifest-fields.ts, ADR 0306): the console does not bundle zod or the
 * server libs. This keeps that list equal to the validator's schema, object by object.
 */
import { z } from 'zod';
import { MANIFEST_FIELDS } from '../../apps/console/src/editor/manifest-fields';
import { limitsSchema, manifestDocumentSchema, routingHintsSchema, skillBlockSchema } from '../../libs/capabilities/src/manifest-schema';
import { upstreamSchema } from '../../libs/capabilities/src/upstream';

const keys = (schema: z.ZodObject) => Object.keys(schema.shape).sort();
const unwrap = (schema: z.ZodType): z.ZodObject =>
  schema instanceof z.ZodOptional ? unwrap(schema.unwrap() as z.ZodType) : (schema as z.ZodObject);

describe('the console editor completes the fields the validator knows', () => {
  it.each([
    ['$', manifestDocumentSchema],
    ['skill', skillBlockSchema],
    ['limits', limitsSchema],
    ['routing', routingHintsSchema],
    ['upstream', upstreamSchema],
    ['upstream.timeouts', unwrap(upstreamSchema.shape.timeouts)],
    ['upstream.auth', unwrap(upstreamSchema.shape.auth)],
  ] as [string, z.ZodObject][])('%s', (parent, schema) => {
    expect([...MANIFEST_FIELDS[parent]].sort()).toEqual(keys(schema));
  });

  it('lists every object field of the document schema', () => {
    const objects = Object.entries(manifestDocumentSchema.shape)
      .filter(([, s]) => unwrap(s as z.ZodType) instanceof z.ZodObject)
      .map(([k]) => k)
      .sort();
    expect(
      Object.keys(MANIFEST_FIELDS)
        .filter((k) => k !== '$' && !k.includes('.'))
        .sort(),
    ).toEqual(objects);
  });
});
