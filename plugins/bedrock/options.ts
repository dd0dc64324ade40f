// The `bedrock` plugin's options (beside the common provider keys baseURL, apiKey, models, …).
import { z } from 'zod';

const text = z.string().min(1).max(4096);

/** An AWS region's shape (`us-east-1`, `us-gov-west-1`, `ap-southeast-5`): what may go into the endpoint's host name. */
export const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

/**
 * The first of `sources` (a name, and the value it gave) that is an AWS region; a value that is
 * not one is warned about and passed over, never put into a host name (`x@127.0.0.1/` would
 * make the endpoint another host, which then gets the signed calls and the API key).
 */
export function firstRegion(sources: ReadonlyArray<readonly [string, string | undefined]>, warn: (message: string) => void): string | undefined {
  for (const [name, value] of sources) {
    if (value === undefined || value === '') continue;
    if (AWS_REGION.test(value)) return value;
    warn(`${name} '${value.slice(0, 64)}' is not an AWS region (such as us-east-1); not used`);
  }
  return undefined;
}

export const bedrockOptionsSchema = z
  .object({
    /** The AWS region of the endpoint (default: AWS_REGION, AWS_DEFAULT_REGION, then the profile's `region`). */
    region: z.string().regex(AWS_REGION, 'an AWS region such as us-east-1').optional(),
    /** Static credentials (prefer the environment or a profile; a config file is easily shared). */
    accessKeyId: text.optional(),
    secretAccessKey: text.optional(),
    sessionToken: z.string().min(1).max(8192).optional(),
    /** A profile of the shared credentials and config files (default: AWS_PROFILE, then `default`). */
    profile: z.string().min(1).max(128).optional(),
    /** `anthropic_beta` flags always sent to Claude models (the client's `anthropic-beta` header adds its own). */
    anthropicBeta: z.array(z.string().min(1).max(128)).max(32).optional(),
  })
  .strict()
  .refine((o) => (o.accessKeyId === undefined) === (o.secretAccessKey === undefined), { message: 'accessKeyId and secretAccessKey go together' });

export type BedrockOptions = z.infer<typeof bedrockOptionsSchema>;

export const BEDROCK_OPTION_KEYS = ['region', 'accessKeyId', 'secretAccessKey', 'sessionToken', 'profile', 'anthropicBeta'] as const;
