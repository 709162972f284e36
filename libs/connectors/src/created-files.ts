/**
 * The files a remote writer created, for taking them back when its job fails or is cancelled. Each is also
 * staged (PutFileResult.staged, kept in the job's checkpoints), so that a later run of a job whose worker died
 * knows those of the dead run (restage).
 */
export class CreatedFiles<Ref> {
  private readonly refs: Ref[] = [];

  /** Remembers a created file by what deleting it takes; answers its staged form. */
  add(ref: Ref): { created: Ref } {
    this.refs.push(ref);
    return { created: ref };
  }

  /** The files earlier runs of the job created, from what they staged. */
  restage(staged: readonly unknown[]): void {
    for (const item of staged)
      if (typeof item === 'object' && item !== null && 'created' in item) this.refs.push(item.created as Ref);
  }

  /** Deletes every file remembered, once. */
  async removeAll(remove: (ref: Ref) => Promise<void>): Promise<void> {
    for (const ref of this.refs.splice(0)) await remove(ref);
  }
}
