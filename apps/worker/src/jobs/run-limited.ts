/**
 * Runs `work` for each item of `items` with at most `limit` running at once (like rclone's --transfers),
 * pulling items only as slots free up so a long listing is never held whole. The first failure stops
 * taking new items and is rethrown once the running ones have settled.
 */
export async function runLimited<T>(
  limit: number,
  items: AsyncIterable<T>,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  for await (const item of items) {
    if (failure) break;
    const task: Promise<void> = work(item).then(
      () => {
        running.delete(task);
      },
      (error: unknown) => {
        running.delete(task);
        failure ??= { error };
      },
    );
    running.add(task);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure.error;
}
