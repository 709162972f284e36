/**
 * At most `limit` packages inspected at once by one API process (each reads a whole zip and holds its
 * manifests); the others wait their turn in arrival order.
 */
export class InspectionSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(inspect: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await inspect();
    } finally {
      // the slot passes straight to the next in line, or is freed
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
