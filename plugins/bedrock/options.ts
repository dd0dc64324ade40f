// The `bedrock` plugin's options (beside the common provider keys baseURL, apiKey, models, …).
import { z } from 'zod';

const text = z.string().min(1).max(4096);

export const bedrockOptionsSchema = z
  .object({
    /** The AWS region of the endpoint (default: AWS_REGION, AWS_DEFAULT_REGION, then the profile's `region`). */
    region: z.string().regex(/^[a-z]{2}(-gov)?-[a-z]+-\d$/, 'an AWS region such as us-east-1').optional(),
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
