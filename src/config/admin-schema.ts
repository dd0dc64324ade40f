import { z } from 'zod';

/**
 * `server.admin`: where the tRPC admin procedures (CLI, TUI) answer. Absent: on the public
 * listener, to loopback clients only. `{ port, host? }`: on a separate listener (host default
 * 127.0.0.1) and not on the public one. `{ public: true }`: on the public listener, to any
 * client (the admin token is still required). docs/admin.md.
 */
export const adminConfigSchema = z
  .strictObject({
    /** Address of the separate admin listener (default 127.0.0.1). */
    host: z.string().min(1).optional(),
    /** Port of the separate admin listener (0 = any free port). */
    port: z.number().int().min(0).max(65535).optional(),
    /** Serve the admin procedures on the public listener to non-loopback clients too. */
    public: z.boolean().optional(),
  })
  .refine((a) => !(a.public && a.port !== undefined), {
    message: 'either a separate admin listener (host, port) or public: true, not both',
  })
  .refine((a) => a.host === undefined || a.port !== undefined, {
    message: 'server.admin.host needs server.admin.port: it is the address of a separate admin listener',
  });

export type AdminConfig = z.output<typeof adminConfigSchema>;
