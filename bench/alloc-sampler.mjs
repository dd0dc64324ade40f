// Preload for bench/alloc-profile.ts (node --import): the first SIGUSR2 starts V8's sampling
// heap profiler, counting objects collected since (every allocation, not only what survives);
// the second writes the profile to $ALLOC_PROFILE_OUT.
import { writeFileSync } from 'node:fs';
import inspector from 'node:inspector';

const session = new inspector.Session();
session.connect();
let sampling = false;
process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true;
    session.post('HeapProfiler.enable', () =>
      session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }),
    );
    return;
  }
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) console.error(`alloc-sampler: ${error.message}`);
    else writeFileSync(process.env.ALLOC_PROFILE_OUT ?? 'alloc.heapprofile', JSON.stringify(result.profile));
  });
});
