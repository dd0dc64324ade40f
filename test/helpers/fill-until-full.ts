import fs from 'node:fs';

/** Appends filler to `file` until its file system refuses (ENOSPC), in smaller pieces as it gets tight, so not a byte is left. */
export function fillUntilFull(file: string): void {
  const fd = fs.openSync(file, 'a');
  try {
    for (const size of [256 * 1024, 16 * 1024, 1024, 64, 1]) {
      const chunk = Buffer.alloc(size, 120);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}
