/** Reads the released public card the gate compares against (a JSON file from the last release). */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { AgentCard } from '@cp/capabilities';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';

// Lenient on purpose: an older release may lack fields we now emit; only what the diff reads is required.
const releasedCard = z.looseObject({
  name: z.string(),
  description: z.string(),
  version: z.string(),
  supportedInterfaces: z.array(z.looseObject({ url: z.string(), protocolBinding: z.string(), protocolVersion: z.string() })),
  capabilities: z.looseObject({ extensions: z.array(z.looseObject({ uri: z.string() })).default([]) }),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(z.looseObject({ id: z.string(), name: z.string(), description: z.string(), tags: z.array(z.string()) })),
});

export async function readReleasedCard(file: string): Promise<AgentCard> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CpctlError(
      CpctlErrorCode.Usage,
      `cannot read the released card ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CpctlError(CpctlErrorCode.InvalidFiles, `${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = releasedCard.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({
      file,
      path: `$${i.path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${String(s)}`)).join('')}`,
      message: i.message,
    }));
    throw new CpctlError(CpctlErrorCode.InvalidFiles, `${file} is not an agent card`, issues);
  }
  return parsed.data as unknown as AgentCard;
}
