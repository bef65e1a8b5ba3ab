import { A2AError } from '../../libs/node-sdk/src/a2a/a2a-errors';

/** Runs `fn`; undefined when it passes, else the `field` its A2AError names (any other error fails the test). */
export function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(A2AError);
    return (error as A2AError).metadata.field;
  }
}
