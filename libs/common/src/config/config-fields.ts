import { z } from 'zod';

/** The field types the configuration is written in (config.ts and its parts). */
export const port = z.coerce.number().int().min(1).max(65535);
export const url = (protocols: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL with protocol ${protocols.join(' or ')}`,
  );
export const list = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);

export const bool = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/**
 * A whole number written in plain ASCII digits, from `min` to `max`: `z.coerce.number()` would also
 * take " ", "1e3", "0x10", "+3", "3.0" and "-0" (Number() reads them all). The message names the
 * bounds, never the value (which may hold control characters or be 100 KB long).
 */
export const wholeNumber = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}, in digits`;
  return z
    .string()
    .refine((value) => /^[0-9]{1,7}$/.test(value) && Number(value) >= min && Number(value) <= max, message)
    .transform(Number);
};
/**
 * A decimal written plainly (digits, one optional point and up to 6 decimals), from `min`
 * (exclusive) to `max`: the same refusals as `wholeNumber` ("1e-1", " ", "Infinity", ".2", "0x1").
 */
export const plainDecimal = (min: number, max: number) => {
  const message = `must be a decimal number above ${min} and at most ${max}, written like 0.2`;
  return z
    .string()
    .refine((value) => /^[0-9]{1,3}(\.[0-9]{1,6})?$/.test(value) && Number(value) > min && Number(value) <= max, message)
    .transform(Number);
};
export const lifetime = (seconds: number) => z.coerce.number().int().min(1).default(seconds);
