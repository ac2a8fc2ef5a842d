// Compiling svc's modules is most of what a command costs before it does anything (a CLI crawl, `svc mcp` started
// by an editor): Node keeps the compiled code on disk and reuses it while the files are unchanged. The worker
// threads a crawl starts load their modules too, so they are told the same directory.
// Not a named import: on a Node too old for svc it would fail at link time, before svc can say which Node it needs.
import * as nodeModule from 'node:module';

/** Turns the cache on for this process and the threads it starts; never fails a command (a read-only disk: no cache). */
export function useCompileCache(): void {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    nodeModule.enableCompileCache();
  } catch {
    return;
  }
  const dir = nodeModule.getCompileCacheDir();
  if (dir) process.env.NODE_COMPILE_CACHE = dir;
}
