import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeKeyword } from '@app/keywords';

/** One research resource of the evaluation set, with a curator's judgment of terms suggested for it. */
export interface EvaluatedResource {
  id: string;
  field: 'life' | 'earth' | 'physical' | 'social' | 'computing';
  /** `tune`: the enhancer's weights were chosen looking at these; `held-out`: never looked at while tuning */
  split: 'tune' | 'held-out';
  /** research software described by a paper, or a dataset record */
  kind: 'software' | 'dataset';
  /** where the keywords were read: a GitHub repository and path, or a record's address */
  source: string;
  title: string;
  /** the keywords as the record gives them */
  keywords: string[];
  /** the sense each keyword is meant in, in words */
  senses: Record<string, string>;
  /**
   * For each keyword WordNet knows, the number of the WordNet sense meant in bench/keywords/candidates.ts's listing
   * (WordNet's order, from 1), or null where none of WordNet's senses is the one meant ("python" the language)
   */
  wordnet: Record<string, number | null>;
  /** terms a curator would keep for this resource */
  keep: string[];
  /** terms a curator would reject: other senses' words, terms too vague for this resource */
  reject: string[];
}

export interface EvaluationSet {
  /** terms rejected for every resource (too general to describe one), unless its own list keeps them */
  rejectEverywhere: string[];
  resources: EvaluatedResource[];
}

export type Verdict = 'kept' | 'rejected' | 'unjudged';

export function loadEvaluationSet(): EvaluationSet {
  const set = JSON.parse(readFileSync(join(__dirname, 'resources.json'), 'utf8')) as EvaluationSet;
  for (const resource of set.resources) {
    const keep = new Set(resource.keep.map(normalizeKeyword));
    const both = resource.reject.map(normalizeKeyword).filter((term) => keep.has(term));
    if (both.length > 0) throw new Error(`${resource.id} both keeps and rejects ${both.join(', ')}`);
  }
  return set;
}

/**
 * A curator's verdict on `term` suggested for `resource`: kept when its keep list has it, rejected when its
 * reject list or the set's reject-everywhere list has it, and otherwise unjudged (the bench counts an
 * unjudged suggestion as not kept, and lists it).
 */
export function verdict(set: EvaluationSet, resource: EvaluatedResource, term: string): Verdict {
  const normalized = normalizeKeyword(term);
  if (resource.keep.some((kept) => normalizeKeyword(kept) === normalized)) return 'kept';
  const rejected = [...resource.reject, ...set.rejectEverywhere];
  if (rejected.some((rejectedTerm) => normalizeKeyword(rejectedTerm) === normalized)) return 'rejected';
  return 'unjudged';
}
