import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  HttpKeywordEnhancer,
  OlsVocabulary,
  SkosmosVocabulary,
  WordNetKeywordEnhancer,
  type Enhancement,
  type KeywordEnhancer,
  type VocabularyService,
} from '@app/keywords';
import type { FakeServer } from '../../test/fakes/fake-server';
import { fakeOls, type OlsTerm } from '../../test/fakes/ols/fake-ols';
import { fakeSkosmos, type SkosConcept } from '../../test/fakes/skosmos/fake-skosmos';
import {
  loadEvaluationSet,
  verdict,
  type EvaluatedResource,
  type EvaluationSet,
  type Verdict,
} from './evaluation-set';

/**
 * bench:keywords: runs each keyword enhancer over the evaluation set (bench/keywords/resources.json) and prints
 * precision (the share of suggestions a curator keeps; an unjudged suggestion counts as not kept) and coverage
 * (the share of resources that get any suggestion), for the tuning split, the held-out split and both: the
 * embedded WordNet enhancer, and OLS and Skosmos answered by their fakes holding real vocabulary subsets
 * (bench/keywords/vocabulary-subsets.ts made them). `--details` prints every suggestion for the tuning split with
 * its verdict, `--details=all` for both. docs/keywords.md explains the set and the figures.
 */

interface Outcome {
  resource: EvaluatedResource;
  suggestions: { term: string; verdict: Verdict }[];
}

async function evaluate(set: EvaluationSet, enhancer: KeywordEnhancer): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const resource of set.resources) {
    const { terms } = await enhancer.enhance(resource.keywords, { title: resource.title });
    outcomes.push({
      resource,
      suggestions: terms.map((term) => ({ term, verdict: verdict(set, resource, term) })),
    });
  }
  return outcomes;
}

function summary(outcomes: readonly Outcome[]): string {
  const suggestions = outcomes.flatMap((outcome) => outcome.suggestions);
  const count = (v: Verdict) => suggestions.filter((s) => s.verdict === v).length;
  const covered = outcomes.filter((outcome) => outcome.suggestions.length > 0).length;
  const precision = suggestions.length === 0 ? 0 : count('kept') / suggestions.length;
  return [
    `precision ${precision.toFixed(3)}`,
    `coverage ${(covered / outcomes.length).toFixed(3)} (${covered}/${outcomes.length})`,
    `suggestions ${suggestions.length}: kept ${count('kept')}, rejected ${count('rejected')}, unjudged ${count('unjudged')}`,
  ].join('  ');
}

function report(name: string, outcomes: readonly Outcome[], details: 'tune' | 'all' | undefined): void {
  console.log(`\n${name}`);
  for (const split of ['tune', 'held-out'] as const) {
    const part = outcomes.filter((outcome) => outcome.resource.split === split);
    console.log(`  ${split.padEnd(8)}  ${summary(part)}`);
  }
  console.log(`  ${'all'.padEnd(8)}  ${summary(outcomes)}`);
  if (!details) return;
  for (const { resource, suggestions } of outcomes.filter(
    (o) => details === 'all' || o.resource.split === 'tune',
  )) {
    const marks = suggestions.map(({ term, verdict }) =>
      verdict === 'kept' ? term : `${term} [${verdict}]`,
    );
    console.log(`    ${resource.id} (${resource.keywords.join(', ')}): ${marks.join('; ') || '-'}`);
  }
}

/** A vocabulary fixture as bench/keywords/vocabulary-subsets.ts wrote it. */
interface Subset<T> {
  source: string;
  entries: T[];
}

function subset<T>(path: string): Subset<T> {
  return JSON.parse(readFileSync(join(__dirname, '..', '..', path), 'utf8')) as Subset<T>;
}

/** The fallback of a vocabulary enhancer in the bench: a failing fake is a broken bench, not a WordNet answer. */
const noFallback: KeywordEnhancer = {
  name: 'none',
  enhance(): Promise<Enhancement> {
    return Promise.reject(new Error('the vocabulary fake did not answer'));
  },
};

/** Runs a vocabulary over the set against its fake, and stops the fake. */
async function evaluateVocabulary(
  set: EvaluationSet,
  fake: FakeServer,
  service: VocabularyService,
  path: string,
): Promise<Outcome[]> {
  await fake.start();
  try {
    const url = fake.origin + path;
    return await evaluate(set, new HttpKeywordEnhancer(service, { url, timeoutMs: 10_000 }, noFallback));
  } finally {
    await fake.stop();
  }
}

async function main(): Promise<void> {
  const details = process.argv.includes('--details=all')
    ? 'all'
    : process.argv.includes('--details')
      ? 'tune'
      : undefined;
  const set = loadEvaluationSet();
  console.log(
    `Evaluation set: ${set.resources.length} resources ` +
      `(${set.resources.filter((r) => r.split === 'held-out').length} held out)`,
  );
  const embedded = new WordNetKeywordEnhancer();
  const started = process.hrtime.bigint();
  const outcomes = await evaluate(set, embedded);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  report(`embedded (WordNet), ${(ms / set.resources.length).toFixed(1)} ms a resource`, outcomes, details);

  const ontologies = subset<OlsTerm>('test/fakes/ols/ontology-subset.json');
  const ols = new OlsVocabulary({ ontologies: ['envo', 'go', 'chebi', 'uberon', 'pato', 'obi'] });
  report(
    `OLS (default ontologies) against its fake holding ${ontologies.entries.length} real terms: ${ontologies.source}`,
    await evaluateVocabulary(set, fakeOls(ontologies.entries), ols, '/ols4'),
    details,
  );
  const agrovoc = subset<SkosConcept>('test/fakes/skosmos/agrovoc-subset.json');
  const skosmos = new SkosmosVocabulary({ vocabulary: 'agrovoc', language: 'en' });
  report(
    `Skosmos (AGROVOC) against its fake holding ${agrovoc.entries.length} real concepts: ${agrovoc.source}`,
    await evaluateVocabulary(set, fakeSkosmos('agrovoc', 'en', agrovoc.entries), skosmos, '/browse'),
    details,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
